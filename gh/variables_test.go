package gh

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVariable(t *testing.T) {
	t.Parallel()
	c, g, _ := newTestClient(t)
	require.NoError(t, g.SetVariable("octo", "hello", "CORE_FORGE", "armed"))
	require.NoError(t, g.SetVariable("octo", "hello", "EMPTY", ""))
	refused, err := New(Credentials{Token: "ghp_unknown", APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	tests := []struct {
		name, repo, variable string
		client               *Client
		wantValue            string
		wantOK               bool
		wantErr              string
	}{
		{name: "set", repo: "hello", variable: "CORE_FORGE", wantValue: "armed", wantOK: true},
		{name: "set but empty", repo: "hello", variable: "EMPTY", wantOK: true},
		{name: "unset", repo: "hello", variable: "OTHER"},
		{name: "token refused", repo: "hello", variable: "CORE_FORGE", client: refused, wantErr: "read variable CORE_FORGE of octo/hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client := c
			if tt.client != nil {
				client = tt.client
			}
			value, ok, err := client.Variable(t.Context(), "octo", tt.repo, tt.variable)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.wantValue, value)
		})
	}
}

func TestSetVariable(t *testing.T) {
	t.Parallel()
	c, g, _ := newTestClient(t)
	ctx := t.Context()
	require.NoError(t, c.SetVariable(ctx, "octo", "hello", "CORE_FORGE_ENABLED", "true"), "created")
	assert.Equal(t, "true", g.Variables("octo", "hello")["CORE_FORGE_ENABLED"])
	require.NoError(t, c.SetVariable(ctx, "octo", "hello", "CORE_FORGE_ENABLED", "false"), "updated")
	assert.Equal(t, "false", g.Variables("octo", "hello")["CORE_FORGE_ENABLED"])
	assert.ErrorContains(t, c.SetVariable(ctx, "octo", "nope", "X", "1"), "set variable X of octo/nope")
}
