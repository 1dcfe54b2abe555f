package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBoxStartDir: a background process starts in the workspace or a
// directory inside it, never outside, with NAME=value pairs only.
func TestBoxStartDir(t *testing.T) {
	t.Parallel()
	b := &Box{ws: "/w"}
	tests := []struct {
		name      string
		opts      StartOptions
		want, err string
	}{
		{name: "the workspace", want: "/w"},
		{name: "dot", opts: StartOptions{Dir: "."}, want: "/w"},
		{name: "below", opts: StartOptions{Dir: "web/app"}, want: "/w/web/app"},
		{name: "above", opts: StartOptions{Dir: "../x"}, err: `the directory "../x" must be relative to the workspace and inside it`},
		{name: "absolute", opts: StartOptions{Dir: "/etc"}, err: "must be relative to the workspace"},
		{name: "no equals sign", opts: StartOptions{Env: []string{"A"}}, err: `the environment entry "A" is not NAME=value`},
		{name: "a space in the name", opts: StartOptions{Env: []string{"A B=1"}}, err: "is not NAME=value"},
		{name: "no name", opts: StartOptions{Env: []string{"=1"}}, err: "is not NAME=value"},
		{name: "a value with equals signs", opts: StartOptions{Dir: "web", Env: []string{"A=b=c"}}, want: "/w/web"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := b.startDir(tt.opts)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
