package session

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/internal/testkit/registry"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/sandboxtest"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/state"
)

func TestLanguagesLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		tier lang.Tier
		l    Languages
		want string
	}{
		{name: "python at test", tier: lang.TierTest, l: Languages{Found: []string{"python"}, Allowed: []string{"pytest", "python -m pytest|unittest"}},
			want: "languages: python; --verify test runs unattended: pytest, python -m pytest|unittest"},
		{name: "rust at build", tier: lang.TierBuild, l: Languages{Found: []string{"rust"}},
			want: "languages: rust; --verify build runs nothing there unattended (their commands run workspace code: --verify test)"},
		{name: "none found", tier: lang.TierBuild, l: Languages{Allowed: []string{"go build"}},
			want: "languages: none found at the top of the repository; --verify build runs unattended: go build"},
		{name: "off", tier: lang.TierOff, l: Languages{Found: []string{"go", "node"}},
			want: "languages: go, node; --verify off: every command goes to the approval gate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, languagesLine(tt.tier, &tt.l))
		})
	}
}

// TestLanguagesFixedInTheSandbox: in a Python, a Node.js and a Rust
// repository with a failing test, the session says what it found, tells the
// model that ecosystem's commands (and not Go's), takes the test command of
// the repository's CI workflow as a check (and says why not its other
// step), the model's test command runs confined, and after a scripted fix
// the contract says fixed, with both the base's and the result's runs
// sandboxed.
func TestLanguagesFixedInTheSandbox(t *testing.T) {
	sandboxtest.RequireBwrap(t)
	tierTest := lang.TierTest // the loop's lang is a language's repository
	for _, lang := range registry.LanguageRepos() {
		t.Run(lang.Ecosystem, func(t *testing.T) {
			t.Parallel()
			sb := toolchainSandbox(t, lang.Ecosystem)
			if _, err := exec.LookPath(lang.Tool); err != nil && os.Getenv("CORE_REQUIRE_BWRAP") != "1" {
				t.Skip(err)
			}
			command := strings.Join(lang.Command, " ")
			replies := []llm.Reply{llm.ContentReply("tool: run_shell\ncommand: " + command)}
			for name, body := range lang.Fix {
				replies = append(replies, llm.ContentReply(write(name, body)))
			}
			replies = append(replies, llm.ContentReply("tool: run_shell\ncommand: "+command), llm.ContentReply("tool: done\nsummary: fixed add"))
			srv := llm.NewModelServer(t, replies...)
			files := map[string]string{".github/workflows/ci.yml": "on: push\njobs:\n  test:\n    steps:\n      - uses: actions/checkout@v4\n" +
				"      - name: Set up\n        run: make setup\n      - name: Test\n        run: " + command + "\n"}
			for name, body := range lang.Files {
				files[name] = body
			}
			opts := testOptions(t, srv, testkit.GitRepo(t, files))
			opts.Verification.Verify, opts.Services.Sandbox, opts.Verification.ShellTimeout, opts.Verification.ChecksFromCI = tierTest, sb, 5*time.Minute, true
			w := &watcher{}
			opts.Live.Progress = w
			rep, err := Run(t.Context(), opts)
			require.NoError(t, err)
			require.Equal(t, state.Completed, rep.Status, rep.Error)

			require.NotNil(t, rep.Languages)
			assert.Equal(t, []string{lang.Ecosystem}, rep.Languages.Found)
			out := w.String()
			assert.Contains(t, out, "languages: "+lang.Ecosystem+"; --verify test runs unattended: ")
			assert.Contains(t, out, "checks from CI: taken \""+command+"\" (ci.yml, job test, step \"Test\")")
			assert.Contains(t, out, "checks from CI: not taken \"make setup\" (ci.yml, job test, step \"Set up\"): make is not a verification command")
			require.NotNil(t, rep.Languages.CI, "the report lists the workflow's steps")
			assert.Len(t, rep.Languages.CI.Taken, 1)
			assert.Len(t, rep.Languages.CI.Skipped, 1)
			system := srv.Requests()[0].Messages[0].Content
			_, rule, ok := strings.Cut(system, "- run_shell runs these without approval")
			require.True(t, ok, "the prompt has the verify rule")
			rule, _, _ = strings.Cut(rule, "\n")
			assert.Contains(t, rule, lang.Command[0])
			assert.NotRegexp(t, `\bgo (build|vet|test)|gofmt`, rule, "the rule names the ecosystem found, not Go's commands")
			obs := srv.Requests()[1].Messages[len(srv.Requests()[1].Messages)-1].Content
			assert.Contains(t, obs, lang.Failure, "the first run shows the failing test")
			assert.Contains(t, obs, "(sandboxed)")

			require.NotNil(t, rep.Contract)
			require.Len(t, rep.Contract.Checks, 1)
			c := rep.Contract.Checks[0]
			assert.Equal(t, lang.Command, c.Command)
			assert.Equal(t, contract.SourceCI, c.Source, "the repository's CI named it first")
			assert.Equal(t, contract.VerdictFixed, c.Verdict, "base %+v, result %+v", c.Baseline, c.Result)
			assert.True(t, c.Baseline.Sandboxed, "the base's run is confined")
			assert.True(t, c.Result.Sandboxed, "the result's run is confined")
			assert.Equal(t, contract.ContractHeld, rep.Contract.Verdict)
		})
	}
}

// TestLanguagesMissingToolchain: a toolchain the repository needs and this
// machine lacks is a pre-flight line, with what to install, and a field of
// the report (its checks are errors that say so: TestAppliesSaysWhyNot).
func TestLanguagesMissingToolchain(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"Cargo.toml": "[package]\nname = \"calc\"\nversion = \"0.1.0\"\n", "src/lib.rs": "\n"})
	srv := llm.NewModelServer(t, llm.ContentReply(write("src/lib.rs", "pub fn add() {}\n")), llm.ContentReply("tool: done\nsummary: added add"))
	opts := testOptions(t, srv, repo)
	opts.Services.Sandbox = sandbox.New(sandbox.Config{Home: t.TempDir(), Mode: sandbox.ModeOff, Path: t.TempDir()})
	opts.Verification.Verify = lang.TierBuild
	w := &watcher{}
	opts.Live.Progress = w
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	want := "no cargo on PATH: install Debian's cargo (or a rustup toolchain)"
	assert.Contains(t, w.String(), "languages: rust; --verify build runs nothing there unattended")
	assert.Contains(t, w.String(), "\npre-flight: "+want+"\n")
	require.NotNil(t, rep.Languages)
	assert.Equal(t, []string{want}, rep.Languages.Missing)
}

// toolchainSandbox is a bwrap sandbox on this machine's PATH; the test
// skips where the toolchain of ecosystem is missing, and fails then under
// CORE_REQUIRE_BWRAP=1.
func toolchainSandbox(t *testing.T, ecosystem string) *sandbox.Sandbox {
	t.Helper()
	sb := sandbox.New(sandbox.Config{Home: t.TempDir(), Mode: sandbox.ModeBwrap, Path: os.Getenv("PATH"), HostHome: os.Getenv("HOME")})
	sandboxtest.RequireToolchain(t, sb, ecosystem)
	return sb
}
