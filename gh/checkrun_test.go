package gh

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckRunCreateFindUpdate(t *testing.T) {
	t.Parallel()
	user, g, repo := newTestClient(t)
	sha, err := repo.Commit(t.Context(), "main", "change", map[string]string{"a.go": "package a\n"})
	require.NoError(t, err)
	ctx := t.Context()

	_, err = user.CreateCheckRun(ctx, "octo", "hello", CheckRunReport{Name: "core/contract", HeadSHA: sha, Status: "in_progress"})
	require.ErrorIs(t, err, ErrCheckRunsRefused, "a user's token may not make check runs")
	assert.Equal(t, "You must authenticate via a GitHub App.", err.Error())

	g.AddToken("ghs_app", "core[bot]")
	require.NoError(t, g.SetPermission("octo", "hello", "core[bot]", "write"))
	app, err := New(Credentials{Token: "ghs_app", APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	none, err := app.FindCheckRun(ctx, "octo", "hello", sha, "core/contract")
	require.NoError(t, err)
	assert.Zero(t, none.ID, "no run yet")

	ref, err := app.CreateCheckRun(ctx, "octo", "hello", CheckRunReport{
		Name: "core/contract", HeadSHA: sha, Status: "in_progress", ExternalID: "s-1", Title: "Running the contract", Summary: "running",
	})
	require.NoError(t, err)
	assert.Contains(t, ref.HTMLURL, "/octo/hello/runs/")
	found, err := app.FindCheckRun(ctx, "octo", "hello", sha, "core/contract")
	require.NoError(t, err)
	assert.Equal(t, ref, found)
	id := ref.ID

	err = app.UpdateCheckRun(ctx, "octo", "hello", id, CheckRunReport{
		Name: "core/contract", Status: "completed", Conclusion: "failure", DetailsURL: "https://example.com/r",
		Title: "Contract broken", Summary: "| check |", Text: "receipt",
		Annotations: []Annotation{{Path: "a.go", StartLine: 1, Level: "failure", Message: "FAIL"}},
	})
	require.NoError(t, err)
	runs := g.CheckRuns("octo", "hello")
	require.Len(t, runs, 1)
	r := runs[0]
	assert.Equal(t, "failure", r.Conclusion)
	assert.Equal(t, "s-1", r.ExternalID)
	assert.Equal(t, "receipt", r.Text)
	require.Len(t, r.Annotations, 1)
	assert.Equal(t, 1, r.Annotations[0].EndLine, "the end line defaults to the start")

	err = app.UpdateCheckRun(ctx, "octo", "hello", id, CheckRunReport{Name: "core/contract", Conclusion: "won"})
	require.Error(t, err)
	assert.False(t, errors.Is(err, ErrCheckRunsRefused), "a 422 is not a refusal: %v", err)
}

func TestPutCheckRun(t *testing.T) {
	t.Parallel()
	user, g, repo := newTestClient(t)
	sha, err := repo.Commit(t.Context(), "main", "change", map[string]string{"a.go": "package a\n"})
	require.NoError(t, err)
	ctx := t.Context()
	_, err = user.PutCheckRun(ctx, "octo", "hello", CheckRunReport{Name: "core/review", HeadSHA: sha, Status: "completed", Conclusion: "success"})
	require.ErrorIs(t, err, ErrCheckRunsRefused)
	assert.Equal(t, "You must authenticate via a GitHub App. (only a GitHub App's token, or the Action's GITHUB_TOKEN, may make check runs)", CheckRunWords(err))
	assert.Equal(t, "other", CheckRunWords(errors.New("other")))

	g.AddToken("ghs_app", "core[bot]")
	require.NoError(t, g.SetPermission("octo", "hello", "core[bot]", "write"))
	app, err := New(Credentials{Token: "ghs_app", APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	found := Annotation{Path: "a.go", StartLine: 1, EndLine: 1, Level: "failure", Title: "Confirmed: a", Message: "m"}
	first, err := app.PutCheckRun(ctx, "octo", "hello", CheckRunReport{Name: "core/review", HeadSHA: sha, Status: "completed", Conclusion: "failure",
		Title: "1 confirmed finding", Summary: "s", Annotations: []Annotation{found}})
	require.NoError(t, err)
	other := Annotation{Path: "a.go", StartLine: 1, EndLine: 1, Level: "failure", Title: "Confirmed: b", Message: "m"}
	second, err := app.PutCheckRun(ctx, "octo", "hello", CheckRunReport{Name: "core/review", HeadSHA: sha, Status: "completed", Conclusion: "failure",
		Title: "2 confirmed findings", Summary: "s", Annotations: []Annotation{found, other}})
	require.NoError(t, err)
	assert.Equal(t, first, second, "the same run, updated")
	runs := g.CheckRuns("octo", "hello")
	require.Len(t, runs, 1)
	assert.Equal(t, "2 confirmed findings", runs[0].Title)
	require.Len(t, runs[0].Annotations, 2, "an annotation the run has is not sent again")
}
