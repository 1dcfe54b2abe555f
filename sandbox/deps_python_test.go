package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPipIndexArgs: the host's index settings become pip's options (pip
// runs isolated, so no variable reaches it); PyPI's index when the host
// names none; nothing else of the host's environment.
func TestPipIndexArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		hostEnv []string
		want    []string
	}{
		{name: "none", want: []string{"--index-url", defaultPipIndex}},
		{name: "an index", hostEnv: []string{"PIP_INDEX_URL=http://127.0.0.1:9/simple/"}, want: []string{"--index-url", "http://127.0.0.1:9/simple/"}},
		{name: "all of them", hostEnv: []string{"PIP_EXTRA_INDEX_URL=http://a/ http://b/", "PIP_TRUSTED_HOST=a", "PIP_FIND_LINKS=/srv/wheels", "PIP_INDEX_URL=http://i/", "HOME=/root"},
			want: []string{"--index-url", "http://i/", "--extra-index-url", "http://a/", "--extra-index-url", "http://b/", "--trusted-host", "a", "--find-links", "/srv/wheels"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, pipIndexArgs(tt.hostEnv))
		})
	}
}
