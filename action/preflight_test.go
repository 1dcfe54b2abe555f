package action

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sethvargo/go-githubactions"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/model"
)

// given is the error setup returns when the endpoint the Action was
// given does not answer, as setup wraps it.
func given(u string) error {
	return &session.InfraError{Err: &session.ConfigError{Option: "inference-url",
		Err: &model.DiscoveryError{Given: true, Tried: []model.Probe{{URL: u, Err: errors.New("dial tcp: connection refused")}}}}}
}

func TestUnreachableSaysWhatARunnerReaches(t *testing.T) {
	t.Parallel()
	hosted := func(k string) string { return map[string]string{"RUNNER_ENVIRONMENT": "github-hosted"}[k] }
	for _, tt := range []struct {
		url, want string
		config    bool
	}{
		{"http://127.0.0.1:8080", "is a loopback address", true},
		{"http://localhost:8080/v1", "is a loopback name", true},
		{"http://10.1.2.3:8000", "is a private address", true},
		{"http://192.168.1.20:11434", "is a private address", true},
		{"http://[fd00::1]:8080", "is a private address", true},
		{"http://169.254.1.1", "is a link-local address", true},
		{"http://gpu-box:8080", "a name without a domain", true},
		{"http://llm.internal:8080", "a name only a local network resolves", true},
		{"https://llm.example.com", "could not reach llm.example.com: check that GET https://llm.example.com/v1/models answers from outside your network", false},
		{"http://8.8.8.8:8080", "could not reach 8.8.8.8", false},
	} {
		hint, config := unreachable(hosted, given(tt.url))
		assert.Contains(t, hint, tt.want, tt.url)
		assert.Equal(t, tt.config, config, tt.url)
		if config {
			assert.Contains(t, hint, "runs-on: self-hosted", tt.url)
		}
	}
	// A self-hosted runner reaches what its network does; another error is
	// not this one; a discovery among the defaults was not given.
	selfHosted := func(k string) string { return map[string]string{"RUNNER_ENVIRONMENT": "self-hosted"}[k] }
	for name, h := range map[string]string{
		"self-hosted":   first(unreachable(selfHosted, given("http://127.0.0.1:8080"))),
		"another error": first(unreachable(hosted, errors.New("get repository: 404"))),
		"not given":     first(unreachable(hosted, &model.DiscoveryError{Tried: []model.Probe{{URL: "http://127.0.0.1:8080"}}})),
	} {
		assert.Empty(t, h, name)
	}
}

func first(s string, _ bool) string { return s }

// TestFailSaysTheRunnerCannotReachTheEndpoint: on a runner GitHub hosts,
// a loopback inference_url is the workflow's to change (configuration),
// and the step and the status comment say why and what to do.
func TestFailSaysTheRunnerCannotReachTheEndpoint(t *testing.T) {
	t.Parallel()
	g, client := actionGitHub(t)
	n, err := g.AddIssue("octo", "hello", ghfake.Issue{Title: "fix it"})
	require.NoError(t, err)
	var out strings.Builder
	outputs := filepath.Join(t.TempDir(), "outputs")
	getenv := func(k string) string {
		return map[string]string{"GITHUB_OUTPUT": outputs, "RUNNER_ENVIRONMENT": "github-hosted"}[k]
	}
	r := &runner{
		a:      githubactions.New(githubactions.WithGetenv(getenv), githubactions.WithWriter(&out)),
		env:    Env{Getenv: getenv},
		status: &statusComment{client: client, owner: "octo", repo: "hello", number: n, runID: "r1"},
	}
	assert.ErrorIs(t, r.fail(t.Context(), given("http://127.0.0.1:8080")), ErrFailed)
	assert.Contains(t, out.String(), "::error::core failed (configuration): ")
	assert.Contains(t, out.String(), fmt.Sprintf("::error::inference_url's host %s is a loopback address", "127.0.0.1"))
	comments := g.Comments("octo", "hello", n)
	require.Len(t, comments, 1)
	assert.Contains(t, comments[0].Body, "core could not do it (configuration): ")
	assert.Contains(t, comments[0].Body, "run the job on a self-hosted runner that reaches 127.0.0.1")
	_, err = os.Stat(outputs)
	require.NoError(t, err)
}

// TestWarnMissingLabel: a run asked by a comment warns when the label
// that would start runs does not exist, with the command that makes it;
// once it exists, nothing is said.
func TestWarnMissingLabel(t *testing.T) {
	t.Parallel()
	g, client := actionGitHub(t)
	var out strings.Builder
	r := &runner{
		a:      githubactions.New(githubactions.WithGetenv(func(string) string { return "" }), githubactions.WithWriter(&out)),
		client: client, owner: "octo", repo: "hello", in: Inputs{Label: "core:fix"},
	}
	r.warnMissingLabel(t.Context())
	assert.Contains(t, out.String(), "::warning::core: the label core:fix does not exist in octo/hello: labelling an issue cannot start core until it does (gh label create core:fix ")

	n, err := g.AddIssue("octo", "hello", ghfake.Issue{Title: "t"})
	require.NoError(t, err)
	require.NoError(t, g.SetPermission("octo", "hello", "github-actions[bot]", "write"))
	require.NoError(t, client.AddLabels(t.Context(), "octo", "hello", n, "core:fix"))
	out.Reset()
	r.warnMissingLabel(t.Context())
	assert.Empty(t, out.String())
}
