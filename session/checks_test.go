package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/state"
)

// goModule is a Go module whose package builds, or not, as calc.go says.
func goModule(calc string) map[string]string {
	return map[string]string{
		"go.mod":  "module example.com/calc\n\ngo 1.21\n",
		"calc.go": "package calc\n\n" + calc + "\n",
	}
}

const (
	builds = "func Add(a, b int) int { return a + b }"
	broken = "func Add(a, b int) int { return a + }"
)

func write(path, content string) string {
	return "tool: write_file\npath: " + path + "\ncontent: " + quote(content)
}

func quote(s string) string {
	b := []byte{'"'}
	for _, r := range s {
		switch r {
		case '"', '\\':
			b = append(b, '\\', byte(r))
		case '\n':
			b = append(b, '\\', 'n')
		default:
			b = append(b, string(r)...)
		}
	}
	return string(append(b, '"'))
}

// buildOptions are testOptions at the build tier: go vet and go build run
// on the host, as they do where the sandbox is not usable.
func buildOptions(t *testing.T, srv *llm.ModelServer, repo string) Options {
	opts := testOptions(t, srv, repo)
	opts.Verification.Verify = lang.TierBuild
	return opts
}

func checkVerdicts(c *contract.Contract) []contract.CheckVerdict {
	var out []contract.CheckVerdict
	for _, r := range c.Checks {
		out = append(out, r.Verdict)
	}
	return out
}

func TestContract(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		base     string
		files    map[string]string // the repository, instead of goModule(base)
		replies  []string
		checks   []string
		timeout  time.Duration
		status   state.Status
		verdict  contract.ContractVerdict
		verdicts []contract.CheckVerdict
		sources  []contract.CheckSource
	}{
		{
			name: "a real fix", base: broken,
			replies: []string{write("calc.go", "package calc\n\n"+builds+"\n"), "tool: run_shell\ncommand: go vet ./...", "tool: done\nsummary: fixed it"},
			status:  state.Completed, verdict: contract.ContractHeld, verdicts: []contract.CheckVerdict{contract.VerdictFixed}, sources: []contract.CheckSource{contract.SourceModel},
		},
		{
			name: "a user check the model never ran catches a regression", base: builds, checks: []string{"go build ./..."},
			replies: []string{write("calc.go", "package calc\n\n"+broken+"\n"), "tool: done\nsummary: done, trust me"},
			status:  state.Partial, verdict: contract.ContractBroken, verdicts: []contract.CheckVerdict{contract.VerdictRegressed}, sources: []contract.CheckSource{contract.SourceUser},
		},
		{
			name: "the harness's final run catches the last edit", base: builds,
			replies: []string{
				write("extra.go", "package calc\n"), "tool: run_shell\ncommand: go vet ./...",
				write("calc.go", "package calc\n\n"+broken+"\n"), "tool: done\nsummary: vet passed",
			},
			status: state.Partial, verdict: contract.ContractBroken, verdicts: []contract.CheckVerdict{contract.VerdictRegressed}, sources: []contract.CheckSource{contract.SourceModel},
		},
		{
			// Killed on both sides, it could not judge the code: the
			// environment's, never broken.
			name: "a check that times out on both sides", base: builds, checks: []string{"go vet ./..."}, timeout: time.Millisecond,
			replies: []string{write("extra.go", "package calc\n"), "tool: done\nsummary: added a file"},
			status:  state.Completed, verdict: contract.ContractUnjudged, verdicts: []contract.CheckVerdict{contract.VerdictEnvironment}, sources: []contract.CheckSource{contract.SourceUser},
		},
		{
			name: "go checks in a Python repository do not apply", checks: []string{"go build ./..."},
			files:   map[string]string{"pyproject.toml": "[project]\nname = \"calc\"\n", "calc.py": "def add(a, b):\n    return a - b\n"},
			replies: []string{write("calc.py", "def add(a, b):\n    return a + b\n"), "tool: run_shell\ncommand: go vet ./...", "tool: done\nsummary: fixed add"},
			status:  state.Completed, verdict: contract.ContractNone, verdicts: []contract.CheckVerdict{contract.VerdictError, contract.VerdictError}, sources: []contract.CheckSource{contract.SourceUser, contract.SourceModel},
		},
		{
			name: "no checks", base: builds,
			replies: []string{write("extra.go", "package calc\n"), "tool: done\nsummary: added a file"},
			status:  state.Completed, verdict: contract.ContractNone,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			files := tt.files
			if files == nil {
				files = goModule(tt.base)
			}
			repo := testkit.GitRepo(t, files)
			var replies []llm.Reply
			for _, r := range tt.replies {
				replies = append(replies, llm.ContentReply(r))
			}
			srv := llm.NewModelServer(t, replies...)
			opts := buildOptions(t, srv, repo)
			opts.Verification.Checks, opts.Verification.ShellTimeout = tt.checks, tt.timeout
			rep, err := Run(t.Context(), opts)
			require.NoError(t, err)
			assert.Equal(t, tt.status, rep.Status, rep.Error)
			require.NotNil(t, rep.Contract)
			assert.Equal(t, tt.verdict, rep.Contract.Verdict)
			assert.Equal(t, tt.verdicts, checkVerdicts(rep.Contract))
			for i, src := range tt.sources {
				assert.Equal(t, src, rep.Contract.Checks[i].Source)
			}
			assert.Equal(t, tt.verdict == contract.ContractNone, rep.Unverified)
			assert.True(t, rep.Landed, "the work lands whatever the contract says")
			if tt.verdict == contract.ContractBroken {
				assert.Contains(t, rep.Error, "the result broke its contract")
			}
			for _, r := range rep.Contract.Checks {
				if r.Result.Inapplicable {
					assert.Equal(t, contract.VerdictError, r.Verdict)
					assert.Equal(t, "no go.mod or go.work: "+strings.Join(r.Command[:2], " ")+" does not apply here", r.Result.Error)
				}
			}
			saved, err := opts.Services.Store.LoadReport(rep.ID)
			require.NoError(t, err)
			assert.Equal(t, rep.Contract.Verdict, saved.Contract.Verdict, "report.json holds the contract")
			assert.NoDirExists(t, opts.Services.Store.WorkspaceDir(rep.ID)+".base", "the base checkout is removed")
		})
	}
}

func TestContractNoChange(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, goModule(builds))
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: run_shell\ncommand: go vet ./..."),
		llm.ContentReply("tool: done\nsummary: it already adds; nothing to change"))
	opts := buildOptions(t, srv, repo)
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	assert.Equal(t, state.Completed, rep.Status)
	assert.False(t, rep.Landed)
	f, ok := rep.Finding(FindingNoChange)
	require.True(t, ok)
	assert.Equal(t, "it already adds; nothing to change", f.Detail)
	assert.Nil(t, rep.Contract, "nothing changed, so nothing was checked")
	var b strings.Builder
	rep.WriteSummary(&b)
	assert.Contains(t, b.String(), "no change: the model called done without changing anything, so nothing landed")
	assert.NotContains(t, b.String(), "UNVERIFIED")
}

func TestContractResumeAfterBroken(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, goModule(builds))
	srv := llm.NewModelServer(t,
		llm.ContentReply(write("calc.go", "package calc\n\n"+broken+"\n")),
		llm.ContentReply("tool: done\nsummary: changed Add"),
		llm.ContentReply(write("calc.go", "package calc\n\n"+builds+"\n// Sum adds.\nfunc Sum(a, b int) int { return Add(a, b) }\n")),
		llm.ContentReply("tool: done\nsummary: fixed the build"),
	)
	opts := buildOptions(t, srv, repo)
	opts.Verification.Checks = []string{"go build ./..."}
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Partial, rep.Status)
	require.Equal(t, contract.ContractBroken, rep.Contract.Verdict)

	resumed := buildOptions(t, srv, repo)
	resumed.Services.Store = opts.Services.Store
	rep, err = Resume(t.Context(), rep.ID, "the build is broken: fix it", resumed)
	require.NoError(t, err)
	assert.Equal(t, state.Completed, rep.Status, rep.Error)
	require.NotNil(t, rep.Contract)
	assert.Equal(t, contract.ContractHeld, rep.Contract.Verdict, "resume runs the contract again, with the user's check")
	assert.Equal(t, []contract.CheckVerdict{contract.VerdictPassing}, checkVerdicts(rep.Contract))
	assert.Equal(t, "package calc\n\n"+builds+"\n// Sum adds.\nfunc Sum(a, b int) int { return Add(a, b) }\n",
		testkit.Git(t, repo, "show", rep.Branch+":calc.go")+"\n")
}

func TestUserChecksRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		tier  lang.Tier
		check string
		want  string
	}{
		{name: "tier off", tier: lang.TierOff, check: "go test ./...", want: `--check "go test ./...": the verify tier off does not let it run unattended`},
		{name: "tests at the build tier", tier: lang.TierBuild, check: "go test ./...", want: "the verify tier build does not let it run unattended"},
		{name: "shell syntax", tier: lang.TierBuild, check: "go vet ./... && rm -rf /", want: "--check: \"go vet ./... && rm -rf /\" is not a plain command"},
		{name: "go mod changes files", tier: lang.TierBuild, check: "go mod tidy", want: "a check must only report"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llm.NewModelServer(t)
			srv.AllowExhaustion()
			opts := testOptions(t, srv, testkit.GitRepo(t, goModule(builds)))
			opts.Verification.Verify, opts.Verification.Checks = tt.tier, []string{tt.check}
			_, err := Run(t.Context(), opts)
			var ce *ConfigError
			require.True(t, errors.As(err, &ce), "a configuration error, got %v", err)
			assert.ErrorContains(t, err, tt.want)
			entries, _ := os.ReadDir(filepath.Join(opts.Services.Store.Home(), "sessions"))
			assert.Empty(t, entries, "no session starts")
		})
	}
}

func TestContractRule(t *testing.T) {
	t.Parallel()
	assert.Empty(t, contractRule(lang.TierOff, nil), "no contract at tier off")
	rule := contractRule(lang.TierTest, []contract.Check{
		{Command: []string{"go", "test", "./..."}, Source: contract.SourceUser},
		{Command: []string{"go", "vet", "./..."}, Source: contract.SourceModel},
	})
	assert.Contains(t, rule, "the harness itself runs every such command you ran")
	assert.Contains(t, rule, "The user's checks: go test ./....")
	assert.NotContains(t, rule, "go vet")
}
