package ghfake

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAddCheckRunValidates(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	sha := strings.Repeat("a", 40)
	note := func(level string) []Annotation {
		return []Annotation{{Path: "a.go", StartLine: 1, AnnotationLevel: level, Message: "m"}}
	}
	tests := []struct {
		name    string
		repo    string
		cr      CheckRun
		wantErr string
	}{
		{name: "completed by conclusion", repo: "repo", cr: CheckRun{HeadSHA: sha, Name: "test", Conclusion: "failure", Annotations: note("warning")}},
		{name: "queued by default", repo: "repo", cr: CheckRun{HeadSHA: sha, Name: "test"}},
		{name: "no repository", repo: "nope", cr: CheckRun{HeadSHA: sha, Name: "test"}, wantErr: "no such repository"},
		{name: "branch is not a sha", repo: "repo", cr: CheckRun{HeadSHA: "main", Name: "test"}, wantErr: "not a full commit SHA"},
		{name: "no name", repo: "repo", cr: CheckRun{HeadSHA: sha}, wantErr: "needs a name"},
		{name: "in progress with conclusion", repo: "repo", cr: CheckRun{HeadSHA: sha, Name: "t", Status: "in_progress", Conclusion: "success"}, wantErr: "no conclusion"},
		{name: "unknown conclusion", repo: "repo", cr: CheckRun{HeadSHA: sha, Name: "t", Conclusion: "broken"}, wantErr: `conclusion "broken"`},
		{name: "completed without conclusion", repo: "repo", cr: CheckRun{HeadSHA: sha, Name: "t", Status: "completed"}, wantErr: `conclusion ""`},
		{name: "unknown status", repo: "repo", cr: CheckRun{HeadSHA: sha, Name: "t", Status: "waiting"}, wantErr: `status "waiting"`},
		{name: "unknown annotation level", repo: "repo", cr: CheckRun{HeadSHA: sha, Name: "t", Conclusion: "failure", Annotations: note("error")}, wantErr: `level "error"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			id, err := g.AddCheckRun("owner", tt.repo, tt.cr)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Positive(t, id)
		})
	}
}

func TestGitHubListCheckRunsForRef(t *testing.T) {
	t.Parallel()
	g, r := newTestGitHub(t, nil)
	ctx := t.Context()
	mainSHA, _, err := r.Head(ctx, "main")
	require.NoError(t, err)
	featSHA, err := r.Commit(ctx, "feature/x", "feature", map[string]string{"a.go": "package a\n"})
	require.NoError(t, err)
	add := func(cr CheckRun) int64 {
		id, err := g.AddCheckRun("owner", "repo", cr)
		require.NoError(t, err)
		return id
	}
	add(CheckRun{HeadSHA: featSHA, Name: "test", Conclusion: "failure"}) // superseded by the re-run
	rerun := add(CheckRun{HeadSHA: featSHA, Name: "test", Conclusion: "success"})
	lint := add(CheckRun{HeadSHA: featSHA, Name: "lint", Conclusion: "failure", Title: "2 problems", Summary: "s", Text: "t"})
	add(CheckRun{HeadSHA: featSHA, Name: "build", Status: "in_progress"})
	add(CheckRun{HeadSHA: mainSHA, Name: "test", Conclusion: "success"})

	tests := []struct {
		name      string
		ref       string
		opts      github.ListCheckRunsOptions
		wantNames []string
		wantTotal int
	}{
		{name: "branch with a slash, latest of each name", ref: "feature/x", wantNames: []string{"build", "lint", "test"}, wantTotal: 3},
		{name: "sha", ref: featSHA, wantNames: []string{"build", "lint", "test"}, wantTotal: 3},
		{name: "all runs", ref: featSHA, opts: github.ListCheckRunsOptions{Filter: github.String("all")}, wantNames: []string{"build", "lint", "test", "test"}, wantTotal: 4},
		{name: "by name", ref: "feature/x", opts: github.ListCheckRunsOptions{CheckName: github.String("lint")}, wantNames: []string{"lint"}, wantTotal: 1},
		{name: "by status", ref: "feature/x", opts: github.ListCheckRunsOptions{Status: github.String("in_progress")}, wantNames: []string{"build"}, wantTotal: 1},
		{name: "paginated", ref: "feature/x", opts: github.ListCheckRunsOptions{ListOptions: github.ListOptions{PerPage: 2, Page: 2}}, wantNames: []string{"test"}, wantTotal: 3},
		{name: "other commit", ref: "main", wantNames: []string{"test"}, wantTotal: 1},
		{name: "made-up sha", ref: strings.Repeat("b", 40), wantTotal: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, _, err := g.Client(t, readerToken).Checks.ListCheckRunsForRef(t.Context(), "owner", "repo", tt.ref, &tt.opts)
			require.NoError(t, err)
			assert.Equal(t, tt.wantTotal, res.GetTotal())
			var names []string
			for _, cr := range res.CheckRuns {
				names = append(names, cr.GetName())
			}
			assert.ElementsMatch(t, tt.wantNames, names)
		})
	}

	res, _, err := g.Client(t, readerToken).Checks.ListCheckRunsForRef(ctx, "owner", "repo", "feature/x", &github.ListCheckRunsOptions{CheckName: github.String("test")})
	require.NoError(t, err)
	require.Len(t, res.CheckRuns, 1)
	assert.Equal(t, rerun, res.CheckRuns[0].GetID(), "the latest run of a name wins")

	cr, _, err := g.Client(t, readerToken).Checks.GetCheckRun(ctx, "owner", "repo", lint)
	require.NoError(t, err)
	assert.Equal(t, "completed", cr.GetStatus())
	assert.Equal(t, "failure", cr.GetConclusion())
	assert.Equal(t, featSHA, cr.GetHeadSHA())
	assert.Equal(t, "2 problems", cr.GetOutput().GetTitle())
	assert.Equal(t, "t", cr.GetOutput().GetText())
	assert.Equal(t, fmt.Sprintf("%s/owner/repo/runs/%d", g.URL, lint), cr.GetHTMLURL())
	assert.Equal(t, "github-actions", cr.GetApp().GetSlug())

	_, resp, err := g.Client(t, readerToken).Checks.ListCheckRunsForRef(ctx, "owner", "repo", "no-such-branch", nil)
	require.Error(t, err)
	assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	assert.Equal(t, "No commit found for SHA: no-such-branch", errorResponse(t, err).Message)

	g.MustAddRepo(t, "owner", "other", nil)
	_, resp, err = g.Client(t, readerToken).Checks.GetCheckRun(ctx, "owner", "other", lint)
	require.Error(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "a run is only found in its own repository")
}

func TestGitHubListCheckRunAnnotations(t *testing.T) {
	t.Parallel()
	g, r := newTestGitHub(t, nil)
	sha, _, err := r.Head(t.Context(), "main")
	require.NoError(t, err)
	var notes []Annotation
	for i := range 75 {
		notes = append(notes, Annotation{
			Path: "a.go", StartLine: i + 1, AnnotationLevel: "failure",
			Message: fmt.Sprintf("problem %d", i), Title: "vet", RawDetails: "raw",
		})
	}
	id, err := g.AddCheckRun("owner", "repo", CheckRun{HeadSHA: sha, Name: "vet", Conclusion: "failure", Annotations: notes})
	require.NoError(t, err)
	client := g.Client(t, readerToken)
	cr, _, err := client.Checks.GetCheckRun(t.Context(), "owner", "repo", id)
	require.NoError(t, err)
	assert.Equal(t, 75, cr.GetOutput().GetAnnotationsCount())

	var all []*github.CheckRunAnnotation
	opts := &github.ListOptions{PerPage: 50}
	pages := 0
	for {
		page, resp, err := client.Checks.ListCheckRunAnnotations(t.Context(), "owner", "repo", id, opts)
		require.NoError(t, err)
		pages++
		all = append(all, page...)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	assert.Equal(t, 2, pages)
	require.Len(t, all, 75)
	first := all[0]
	assert.Equal(t, "a.go", first.GetPath())
	assert.Equal(t, 1, first.GetStartLine())
	assert.Equal(t, 1, first.GetEndLine(), "the end line defaults to the start line")
	assert.Equal(t, "failure", first.GetAnnotationLevel())
	assert.Equal(t, "problem 0", first.GetMessage())
	assert.Equal(t, "vet", first.GetTitle())
	assert.Equal(t, "raw", first.GetRawDetails())
	assert.Equal(t, "problem 74", all[74].GetMessage())

	_, resp, err := client.Checks.ListCheckRunAnnotations(t.Context(), "owner", "repo", id+1000, nil)
	require.Error(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}
