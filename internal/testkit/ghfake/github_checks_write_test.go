package ghfake

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCreateCheckRunRules(t *testing.T) {
	t.Parallel()
	g, r := newTestGitHub(t, nil)
	head, err := r.Commit(t.Context(), "main", "more", map[string]string{"b.go": "package b\n"})
	require.NoError(t, err)
	app := g.Client(t, writerToken)
	note := func(a github.CheckRunAnnotation) *github.CheckRunOutput {
		return &github.CheckRunOutput{Title: github.String("t"), Summary: github.String("s"), Annotations: []*github.CheckRunAnnotation{&a}}
	}
	good := github.CheckRunAnnotation{Path: github.String("b.go"), StartLine: github.Int(1), EndLine: github.Int(1), AnnotationLevel: github.String("failure"), Message: github.String("m")}
	noPath := good
	noPath.Path = nil
	many := &github.CheckRunOutput{Title: github.String("t"), Summary: github.String("s")}
	for range 51 {
		many.Annotations = append(many.Annotations, &good)
	}
	tests := []struct {
		name    string
		opts    github.CreateCheckRunOptions
		wantErr string
	}{
		{name: "in progress", opts: github.CreateCheckRunOptions{Name: "core/contract", HeadSHA: head, Status: github.String("in_progress")}},
		{name: "conclusion completes", opts: github.CreateCheckRunOptions{Name: "c", HeadSHA: head, Conclusion: github.String("success"), Output: note(good)}},
		{name: "no name", opts: github.CreateCheckRunOptions{HeadSHA: head}, wantErr: "name"},
		{name: "not a commit", opts: github.CreateCheckRunOptions{Name: "c", HeadSHA: strings.Repeat("a", 40)}, wantErr: "No commit found"},
		{name: "a branch is not a sha", opts: github.CreateCheckRunOptions{Name: "c", HeadSHA: "main"}, wantErr: "No commit found"},
		{name: "bad status", opts: github.CreateCheckRunOptions{Name: "c", HeadSHA: head, Status: github.String("done")}, wantErr: `Status "done"`},
		{name: "bad conclusion", opts: github.CreateCheckRunOptions{Name: "c", HeadSHA: head, Conclusion: github.String("held")}, wantErr: `Conclusion "held"`},
		{name: "completed needs a conclusion", opts: github.CreateCheckRunOptions{Name: "c", HeadSHA: head, Status: github.String("completed")}, wantErr: "Conclusion can't be blank"},
		{name: "action required needs details", opts: github.CreateCheckRunOptions{Name: "c", HeadSHA: head, Conclusion: github.String("action_required")}, wantErr: "Details url"},
		{name: "output needs a summary", opts: github.CreateCheckRunOptions{Name: "c", HeadSHA: head, Output: &github.CheckRunOutput{Title: github.String("t")}}, wantErr: "summary can't be blank"},
		{name: "summary too long", opts: github.CreateCheckRunOptions{Name: "c", HeadSHA: head, Output: &github.CheckRunOutput{Title: github.String("t"), Summary: github.String(strings.Repeat("é", 65536))}}, wantErr: "too long"},
		{name: "annotation without path", opts: github.CreateCheckRunOptions{Name: "c", HeadSHA: head, Output: note(noPath)}, wantErr: "Annotation 0 needs a path"},
		{name: "51 annotations", opts: github.CreateCheckRunOptions{Name: "c", HeadSHA: head, Output: many}, wantErr: "Only 50 annotations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run, _, err := app.Checks.CreateCheckRun(t.Context(), "owner", "repo", tt.opts)
			if tt.wantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, head, run.GetHeadSHA())
				assert.Equal(t, "core", run.GetApp().GetSlug())
				return
			}
			require.Error(t, err)
			er := errorResponse(t, err)
			assert.Equal(t, http.StatusUnprocessableEntity, er.Response.StatusCode)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
	for _, run := range g.CheckRuns("owner", "repo") {
		assert.Contains(t, []string{"core/contract", "c"}, run.Name, "a refused request makes no run")
	}
}

func TestCheckRunUpdateAndAccess(t *testing.T) {
	t.Parallel()
	g, r := newTestGitHub(t, nil)
	head, err := r.Commit(t.Context(), "main", "more", map[string]string{"b.go": "package b\n"})
	require.NoError(t, err)
	g.AddToken("ghs_other", "other[bot]")
	require.NoError(t, g.SetPermission("owner", "repo", "other[bot]", "write"))
	ctx := t.Context()

	_, _, err = g.Client(t, ownerToken).Checks.CreateCheckRun(ctx, "owner", "repo", github.CreateCheckRunOptions{Name: "c", HeadSHA: head})
	require.Error(t, err)
	assert.Equal(t, http.StatusForbidden, errorResponse(t, err).Response.StatusCode)
	assert.Contains(t, err.Error(), "You must authenticate via a GitHub App.")

	app := g.Client(t, writerToken)
	run, _, err := app.Checks.CreateCheckRun(ctx, "owner", "repo", github.CreateCheckRunOptions{
		Name: "core/contract", HeadSHA: head, Status: github.String("in_progress"), ExternalID: github.String("s-1"),
		Output: &github.CheckRunOutput{Title: github.String("Running"), Summary: github.String("checks run"), Annotations: []*github.CheckRunAnnotation{{
			Path: github.String("b.go"), StartLine: github.Int(1), EndLine: github.Int(1), AnnotationLevel: github.String("notice"), Message: github.String("first"),
		}}},
	})
	require.NoError(t, err)
	assert.Equal(t, "in_progress", run.GetStatus())
	assert.Nil(t, run.Conclusion)

	update := github.UpdateCheckRunOptions{
		Name: "core/contract", Conclusion: github.String("failure"), DetailsURL: github.String("https://example.com/run"),
		Output: &github.CheckRunOutput{Title: github.String("Contract broken"), Summary: github.String("| check |"), Annotations: []*github.CheckRunAnnotation{{
			Path: github.String("b.go"), StartLine: github.Int(1), EndLine: github.Int(1), AnnotationLevel: github.String("failure"), Message: github.String("second"),
		}}},
	}
	_, _, err = g.Client(t, "ghs_other").Checks.UpdateCheckRun(ctx, "owner", "repo", run.GetID(), update)
	require.Error(t, err, "another App may not update the run")
	assert.Equal(t, http.StatusForbidden, errorResponse(t, err).Response.StatusCode)

	done, _, err := app.Checks.UpdateCheckRun(ctx, "owner", "repo", run.GetID(), update)
	require.NoError(t, err)
	assert.Equal(t, "completed", done.GetStatus())
	assert.Equal(t, "failure", done.GetConclusion())
	assert.Equal(t, "https://example.com/run", done.GetDetailsURL())
	assert.Equal(t, "s-1", done.GetExternalID())
	assert.Equal(t, 2, done.GetOutput().GetAnnotationsCount(), "annotations accumulate")

	got, _, err := app.Checks.ListCheckRunsForRef(ctx, "owner", "repo", head, &github.ListCheckRunsOptions{CheckName: github.String("core/contract")})
	require.NoError(t, err)
	require.Len(t, got.CheckRuns, 1)
	assert.Equal(t, "Contract broken", got.CheckRuns[0].GetOutput().GetTitle())
	notes, _, err := app.Checks.ListCheckRunAnnotations(ctx, "owner", "repo", run.GetID(), nil)
	require.NoError(t, err)
	require.Len(t, notes, 2)
	assert.Equal(t, "second", notes[1].GetMessage())

	_, _, err = app.Checks.UpdateCheckRun(ctx, "owner", "repo", run.GetID(), github.UpdateCheckRunOptions{Name: "core/contract", Status: github.String("completed")})
	require.Error(t, err, "status completed asks for a conclusion in the same request")
	_, _, err = app.Checks.UpdateCheckRun(ctx, "owner", "repo", run.GetID(), github.UpdateCheckRunOptions{Name: "core/contract", Conclusion: github.String("bad")})
	require.Error(t, err)
	runs := g.CheckRuns("owner", "repo")
	require.Len(t, runs, 1)
	assert.Equal(t, "failure", runs[0].Conclusion, "a refused update changes nothing")
	assert.Equal(t, "core[bot]", runs[0].App)
}
