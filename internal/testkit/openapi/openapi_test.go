package openapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

func TestTemplate(t *testing.T) {
	t.Parallel()
	d := GitHub(t)
	assert.Equal(t, "/repos/{owner}/{repo}/check-runs", d.Template("/repos/octo/hello/check-runs"))
	assert.Equal(t, "/repos/{owner}/{repo}/check-runs/{check_run_id}", d.Template("/repos/octo/hello/check-runs/42"))
	assert.Equal(t, "/repos/{owner}/{repo}/pulls/comments", d.Template("/repos/octo/hello/pulls/comments"), "a literal segment wins")
	assert.Empty(t, d.Template("/no/such/thing/at/all/here"))
	assert.Equal(t, "/repos/{owner}/{repo}/git/refs/{ref}", d.Template("/repos/octo/hello/git/refs/heads/core-session/1"), "a reference keeps its slashes")
	assert.Equal(t, "/repos/{owner}/{repo}/git/refs/{ref}", d.Template("/repos/octo/hello/git/refs/heads"))
	assert.Equal(t, "/repos/{owner}/{repo}/contents/{path}", d.Template("/repos/octo/hello/contents/a/b/c.go"))
	assert.Empty(t, d.Template("/repos/octo/hello/check-runs/42/no/such"), "only a reference or a path spans segments")
}

func TestValidateCheckRuns(t *testing.T) {
	t.Parallel()
	d := GitHub(t)
	const create, update = "/repos/octo/hello/check-runs", "/repos/octo/hello/check-runs/7"
	tests := []struct {
		name, method, path, body string
		wantErr                  []string
	}{
		{name: "a valid create", method: "POST", path: create, body: `{"name":"core/contract","head_sha":"abc","status":"in_progress","external_id":"s","output":{"title":"t","summary":"s","annotations":[{"path":"go.mod","start_line":1,"end_line":1,"annotation_level":"failure","message":"m"}]}}`},
		{name: "a valid completion", method: "PATCH", path: update, body: `{"name":"core/contract","status":"completed","conclusion":"success"}`},
		{name: "a bad conclusion", method: "POST", path: create, body: `{"name":"c","head_sha":"abc","conclusion":"held"}`, wantErr: []string{`conclusion: "held" is not one of action_required`}},
		{name: "a missing name", method: "POST", path: create, body: `{"head_sha":"abc"}`, wantErr: []string{"name: required, missing"}},
		{name: "an annotation without path", method: "POST", path: create, body: `{"name":"c","head_sha":"abc","output":{"title":"t","summary":"s","annotations":[{"start_line":1,"end_line":1,"annotation_level":"failure","message":"m"}]}}`, wantErr: []string{"output.annotations[0].path: required, missing"}},
		{name: "a line is an integer", method: "POST", path: create, body: `{"name":"c","head_sha":"abc","output":{"title":"t","summary":"s","annotations":[{"path":"a","start_line":1.5,"end_line":"2","annotation_level":"failure","message":"m"}]}}`, wantErr: []string{"output.annotations[0].end_line: want integer, got string", "output.annotations[0].start_line: want integer, got number"}},
		{name: "completed without a conclusion", method: "PATCH", path: update, body: `{"status":"completed"}`, wantErr: []string{"the body: matches none of anyOf", "conclusion: required, missing"}},
		{name: "a summary too long", method: "POST", path: create, body: `{"name":"c","head_sha":"abc","output":{"title":"t","summary":"` + strings.Repeat("é", 65536) + `"}}`, wantErr: []string{"output.summary: 65536 characters, at most 65535 allowed"}},
		{name: "not JSON", method: "POST", path: create, body: `{`, wantErr: []string{"the body is not JSON"}},
		{name: "more after the JSON", method: "POST", path: create, body: `{"name":"c","head_sha":"a"} x`, wantErr: []string{"more follows"}},
		{name: "no body to check", method: "DELETE", path: "/repos/octo/hello", body: `anything`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := d.Validate(tt.method, tt.path, []byte(tt.body))
			if len(tt.wantErr) == 0 {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, w := range tt.wantErr {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestRequireValidReadsTheDoublesLog(t *testing.T) {
	t.Parallel()
	d := GitHub(t)
	g := ghfake.NewGitHub(t)
	g.AddToken("ghs_app", "core[bot]")
	repo := g.MustAddRepo(t, "octo", "hello", map[string]string{"a": "a\n"})
	require.NoError(t, g.SetPermission("octo", "hello", "core[bot]", "write"))
	sha, ok, err := repo.Head(t.Context(), "main")
	require.NoError(t, err)
	require.True(t, ok)
	c := g.Client(t, "ghs_app")
	_, _, err = c.Checks.CreateCheckRun(t.Context(), "octo", "hello", github.CreateCheckRunOptions{Name: "core/contract", HeadSHA: sha, Status: github.String("in_progress")})
	require.NoError(t, err)
	_, _, err = c.Checks.CreateCheckRun(t.Context(), "octo", "hello", github.CreateCheckRunOptions{HeadSHA: sha, Conclusion: github.String("held")})
	require.Error(t, err)

	var rec recorder
	n := RequireValid(&rec, d, g, "/repos/octo/hello/check-runs")
	assert.Equal(t, 2, n)
	require.Len(t, rec.errors, 1, "the second request is invalid")
	assert.Contains(t, rec.errors[0], `conclusion: "held" is not one of`)
}

// recorder is a testing.TB that keeps the errors reported to it.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, strings.TrimSpace(fmt.Sprintf(format, args...)))
}

// FuzzValidate: any body, valid or not, gets an answer, never a panic,
// and a body that is not JSON is always refused.
func FuzzValidate(f *testing.F) {
	d, err := fixture()
	if err != nil {
		f.Skipf("GitHub's OpenAPI description is missing (run ./scripts/fixtures.sh): %v", err)
	}
	f.Add("POST", "/repos/o/r/check-runs", `{"name":"c","head_sha":"a","output":{"title":"t","summary":"s","annotations":[{}]}}`)
	f.Add("PATCH", "/repos/o/r/check-runs/1", `{"status":"completed","conclusion":null}`)
	f.Add("POST", "/repos/o/r/pulls", `{"title":1,"head":[],"base":{}}`)
	f.Add("PATCH", "/repos/o/r/pulls/1", `null`)
	f.Fuzz(func(t *testing.T, method, path, body string) {
		err := d.Validate(method, path, []byte(body))
		if d.BodySchema(method, path) != nil && !json.Valid([]byte(body)) && err == nil {
			t.Fatalf("%s %s: a body that is not JSON passed: %q", method, path, body)
		}
	})
}
