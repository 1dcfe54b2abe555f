package ghfake

import (
	"net/http"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSetVariableValidates(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	tests := []struct {
		name, repo, variable, wantErr string
	}{
		{name: "valid", repo: "repo", variable: "CORE_FORGE"},
		{name: "lower case", repo: "repo", variable: "core_forge_2"},
		{name: "no repository", repo: "nope", variable: "X", wantErr: "no such repository"},
		{name: "reserved prefix", repo: "repo", variable: "GITHUB_X", wantErr: "not a valid variable name"},
		{name: "leading digit", repo: "repo", variable: "1X", wantErr: "not a valid variable name"},
		{name: "dash", repo: "repo", variable: "A-B", wantErr: "not a valid variable name"},
		{name: "empty", repo: "repo", wantErr: "not a valid variable name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := g.SetVariable("owner", tt.repo, tt.variable, "v")
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			assert.NoError(t, err)
		})
	}
}

func TestGitHubGetRepoVariable(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	require.NoError(t, g.SetVariable("owner", "repo", "core_forge", "on"))
	tests := []struct {
		name, token, variable string
		wantValue             string
		wantStatus            int
	}{
		{name: "set", token: readerToken, variable: "CORE_FORGE", wantValue: "on", wantStatus: 200},
		{name: "names ignore case", token: writerToken, variable: "core_forge", wantValue: "on", wantStatus: 200},
		{name: "unset", token: readerToken, variable: "OTHER", wantStatus: 404},
		{name: "unknown token", token: "ghp_nope", variable: "CORE_FORGE", wantStatus: 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, resp, err := g.Client(t, tt.token).Actions.GetRepoVariable(t.Context(), "owner", "repo", tt.variable)
			require.Equal(t, tt.wantStatus, resp.StatusCode)
			if tt.wantStatus != http.StatusOK {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "CORE_FORGE", v.Name)
			assert.Equal(t, tt.wantValue, v.Value)
			assert.False(t, v.GetCreatedAt().IsZero())
		})
	}
}

func TestGitHubWriteRepoVariables(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	ctx := t.Context()
	writer := g.Client(t, writerToken)

	resp, err := writer.Actions.CreateRepoVariable(ctx, "owner", "repo", &github.ActionsVariable{Name: "armed", Value: "true"})
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, resp.StatusCode)
	resp, err = writer.Actions.CreateRepoVariable(ctx, "owner", "repo", &github.ActionsVariable{Name: "ARMED", Value: "again"})
	require.Error(t, err)
	assert.Equal(t, http.StatusConflict, resp.StatusCode)
	resp, err = writer.Actions.CreateRepoVariable(ctx, "owner", "repo", &github.ActionsVariable{Name: "GITHUB_SHA", Value: "x"})
	require.Error(t, err)
	assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	resp, err = g.Client(t, readerToken).Actions.CreateRepoVariable(ctx, "owner", "repo", &github.ActionsVariable{Name: "SNEAKY", Value: "x"})
	require.Error(t, err)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)

	resp, err = writer.Actions.UpdateRepoVariable(ctx, "owner", "repo", &github.ActionsVariable{Name: "ARMED", Value: "false"})
	require.NoError(t, err)
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	resp, err = writer.Actions.UpdateRepoVariable(ctx, "owner", "repo", &github.ActionsVariable{Name: "MISSING", Value: "x"})
	require.Error(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Equal(t, map[string]string{"ARMED": "false"}, g.Variables("owner", "repo"), "the refused writes changed nothing")

	require.NoError(t, g.SetVariable("owner", "repo", "B_SECOND", "2"))
	list, _, err := g.Client(t, readerToken).Actions.ListRepoVariables(ctx, "owner", "repo", &github.ListOptions{PerPage: 1})
	require.NoError(t, err)
	assert.Equal(t, 2, list.TotalCount)
	require.Len(t, list.Variables, 1)
	assert.Equal(t, "ARMED", list.Variables[0].Name)
}
