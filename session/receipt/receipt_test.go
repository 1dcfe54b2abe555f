package receipt

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sample() *Receipt {
	return &Receipt{
		Format: Format, Core: "core (devel)", Repository: "acme/widget",
		Start:               Side{Commit: strings.Repeat("a", 40), Tree: strings.Repeat("b", 40)},
		Result:              Side{Commit: strings.Repeat("c", 40), Tree: strings.Repeat("d", 40)},
		Branch:              "core-session/x",
		Sandbox:             Sandbox{Backend: "bwrap", Tier: "test", Profile: Hash([]byte("profile"))},
		Verdict:             "held",
		BuildCeilingSeconds: 480,
		Checks: []Check{{
			Argv: []string{"go", "test", "./..."}, Dir: ".", Env: []string{"HOME", "PATH"}, Source: "user", TimeoutSeconds: 120,
			Start:   Run{Exit: 1, Seconds: 1.5, Output: Hash([]byte("FAIL <x> & y"))},
			Result:  Run{Exit: 0, Passed: true, Seconds: 1.2, Output: Hash([]byte("ok"))},
			Verdict: "fixed",
		}},
	}
}

func TestRoundTrip(t *testing.T) {
	data, err := sample().Marshal()
	require.NoError(t, err)
	again, err := sample().Marshal()
	require.NoError(t, err)
	assert.Equal(t, data, again, "the same receipt gives the same bytes")
	r, err := Parse(data)
	require.NoError(t, err)
	assert.Equal(t, sample(), r)

	from, err := FromCheckText("## core/contract\n\n" + CheckText(data) + "\nmore")
	require.NoError(t, err)
	assert.Equal(t, data, from)
	h, ok := HashIn("The contract held.\n\n" + SummaryLine(Hash(data)) + "\n")
	require.True(t, ok)
	assert.Equal(t, Hash(data), h)
}

func TestParseRefuses(t *testing.T) {
	data, err := sample().Marshal()
	require.NoError(t, err)
	edited := strings.Replace(string(data), `"exit":1`, `"exit":0`, 1)
	_, err = Parse([]byte(edited))
	assert.NoError(t, err, "an edit that keeps the canonical form parses: the hash is what tells it")
	assert.NotEqual(t, Hash(data), Hash([]byte(edited)))

	for name, tc := range map[string]struct{ in, want string }{
		"newer":     {strings.Replace(string(data), `"format":1`, `"format":2`, 1), "newer core"},
		"reencoded": {strings.Replace(string(data), `"core":`, `"core" :`, 1), "canonical"},
		"unknown":   {strings.Replace(string(data), `"core":`, `"extra":1,"core":`, 1), "unknown field"},
		"no format": {`{"core":"x"}`, "no format"},
		"not json":  {`<html>`, "not a receipt"},
		"two":       {string(data) + "{}", "not a receipt"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err = FromCheckText("no receipt here")
	assert.ErrorContains(t, err, "carries no receipt")
	_, ok := HashIn("Receipt: `sha256:short`")
	assert.False(t, ok)
}

func FuzzParse(f *testing.F) {
	data, err := sample().Marshal()
	require.NoError(f, err)
	f.Add(data)
	f.Add([]byte(`{"format":1}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := Parse(in)
		if err != nil {
			return
		}
		out, err := r.Marshal()
		require.NoError(t, err)
		assert.Equal(t, in, out, "a receipt that parses is its canonical bytes")
		carried, err := FromCheckText("summary\n" + CheckText(in) + "after")
		require.NoError(t, err)
		assert.Equal(t, in, carried, "a check run's text carries the receipt's bytes unchanged")
	})
}
