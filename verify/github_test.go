package verify

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePR(t *testing.T) {
	t.Parallel()
	full, n, err := ParsePR("acme/widget#12")
	require.NoError(t, err)
	assert.Equal(t, "acme/widget", full)
	assert.Equal(t, 12, n)
	for _, bad := range []string{"acme/widget", "acme/widget#0", "acme#1", "-x/y#1", "acme/widget#1 ", "a/b/c#1", "acme/widget#99999999999"} {
		_, _, err := ParsePR(bad)
		assert.ErrorContains(t, err, "--pr must be owner/name#N", bad)
	}
}

func FuzzParsePR(f *testing.F) {
	f.Add("acme/widget#12")
	f.Add("a/b#1")
	f.Add("acme/widget#0")
	f.Fuzz(func(t *testing.T, s string) {
		full, n, err := ParsePR(s)
		if err != nil {
			return
		}
		require.Positive(t, n)
		assert.Equal(t, s, full+"#"+strconv.Itoa(n), "what parses is what was given")
	})
}
