package land

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/session/receipt"
)

// checkRunRepo is octo/hello on a GitHub double, opened with a token of
// login, and its head commit.
func checkRunRepo(t *testing.T, login string) (*Repo, *ghfake.GitHub, string) {
	t.Helper()
	g := ghfake.NewGitHub(t)
	g.AddToken("ghs_land", login)
	repo := g.MustAddRepo(t, "octo", "hello", map[string]string{"go.mod": "module hello\n"})
	require.NoError(t, g.SetPermission("octo", "hello", login, "write"))
	sha, ok, err := repo.Head(t.Context(), "main")
	require.NoError(t, err)
	require.True(t, ok)
	client, err := gh.New(gh.Credentials{Token: "ghs_land", APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	r, err := Open(t.Context(), nil, client, "octo/hello")
	require.NoError(t, err)
	return r, g, sha
}

func checkRunWork(sha string) *Work {
	return &Work{
		Record:  Record{ID: "s-1", Commit: sha},
		Verdict: Verdict{Held: true, Contract: "held", Checks: 1},
		Proof:   Proof{ContractTable: "### Checks\n\n| check | verdict |\n|---|---|\n| `go vet ./...` | passing |\n"},
		Scrub:   func(s string) string { return strings.ReplaceAll(s, "ghs_land", "***") },
	}
}

func TestCheckRunCarriesTheReceipt(t *testing.T) {
	t.Parallel()
	r, g, sha := checkRunRepo(t, "core[bot]")
	data := []byte(`{"format":1}` + "\n")
	hash := receipt.Hash(data)
	var asked []string
	w := checkRunWork(sha)
	w.Receipt = func(_ context.Context, commit string) ([]byte, string, error) {
		asked = append(asked, commit)
		return data, hash, nil
	}
	cr := r.startCheckRun(t.Context(), w)
	require.NotNil(t, cr)
	assert.Equal(t, []string{sha}, asked, "the receipt of the landed commit")
	runs := g.CheckRuns("octo", "hello")
	require.Len(t, runs, 1)
	assert.Equal(t, "in_progress", runs[0].Status)
	r.finishCheckRun(t.Context(), w, cr)
	runs = g.CheckRuns("octo", "hello")
	require.Len(t, runs, 1)
	assert.Equal(t, "success", runs[0].Conclusion)
	assert.Equal(t, "Contract held: 1 check", runs[0].Title)
	assert.Contains(t, runs[0].Summary, receipt.SummaryLine(hash))
	back, err := receipt.FromCheckText(runs[0].Text)
	require.NoError(t, err)
	assert.Equal(t, data, back, "the text carries the receipt's bytes")
	assert.Equal(t, runs[0].HTMLURL, w.CheckRun)
}

func TestCheckRunReceiptErrorIsSaid(t *testing.T) {
	t.Parallel()
	r, g, sha := checkRunRepo(t, "core[bot]")
	w := checkRunWork(sha)
	w.Receipt = func(context.Context, string) ([]byte, string, error) {
		return nil, "", errors.New("hash the output of ghs_land: disk full")
	}
	cr := r.startCheckRun(t.Context(), w)
	r.finishCheckRun(t.Context(), w, cr)
	assert.Equal(t, "no receipt: hash the output of ***: disk full", w.ReceiptNote)
	runs := g.CheckRuns("octo", "hello")
	require.Len(t, runs, 1)
	assert.Equal(t, "success", runs[0].Conclusion, "a receipt's failure is not the contract's")
	assert.Contains(t, runs[0].Summary, "no receipt: hash the output of ***: disk full")
	assert.Empty(t, runs[0].Text)
}

func TestCheckRunOfACancelledLanding(t *testing.T) {
	t.Parallel()
	r, g, sha := checkRunRepo(t, "core[bot]")
	w := checkRunWork(sha)
	cr := r.startCheckRun(t.Context(), w)
	require.NotNil(t, cr)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	r.finishCheckRun(ctx, w, cr)
	runs := g.CheckRuns("octo", "hello")
	require.Len(t, runs, 1)
	assert.Equal(t, "cancelled", runs[0].Conclusion, "completed even so, on a context of its own")

	// Landed again on the same commit: the same run, in progress again.
	again := r.startCheckRun(t.Context(), w)
	require.NotNil(t, again)
	assert.Equal(t, cr.ref.ID, again.ref.ID)
	runs = g.CheckRuns("octo", "hello")
	require.Len(t, runs, 1)
	assert.Equal(t, "in_progress", runs[0].Status)
	assert.Empty(t, runs[0].Conclusion, "in progress again: no conclusion until it completes")
	r.finishCheckRun(t.Context(), w, again)
	runs = g.CheckRuns("octo", "hello")
	require.Len(t, runs, 1, "never a second run on the commit")
	assert.Equal(t, "success", runs[0].Conclusion)
}

func TestCheckRunRefusedForAUserToken(t *testing.T) {
	t.Parallel()
	r, g, sha := checkRunRepo(t, "alice")
	w := checkRunWork(sha)
	cr := r.startCheckRun(t.Context(), w)
	assert.Nil(t, cr)
	r.finishCheckRun(t.Context(), w, cr)
	assert.True(t, strings.HasPrefix(w.CheckRun, "no check run: You must authenticate via a GitHub App."), w.CheckRun)
	assert.Empty(t, g.CheckRuns("octo", "hello"))
}
