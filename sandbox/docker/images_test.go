package docker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseToolchainImages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     map[string]string
		err      string
	}{
		{name: "defaults", in: "", want: DefaultToolchainImages()},
		{name: "over the defaults", in: "node=ghcr.io/o/node:22\npython=none",
			want: map[string]string{"python": "", "node": "ghcr.io/o/node:22", "rust": DefaultToolchainImages()["rust"]}},
		{name: "go is core's own image", in: "go=golang:1", err: `ecosystem python, node or rust (e.g. python=python:3.13-slim), got "go=golang:1"`},
		{name: "a tool is not an ecosystem", in: "pytest=x", err: `got "pytest=x"`},
		{name: "no image", in: "python=", err: `got "python="`},
		{name: "no pair", in: "python:3", err: `got "python:3"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseToolchainImages(tt.in)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
