package setup

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/state"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestHome(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		def     string
		want    string
		wantErr string
	}{
		{name: "CORE_HOME wins", env: map[string]string{"CORE_HOME": "/s/core", "HOME": "/h"}, def: "/runner/core", want: "/s/core"},
		{name: "the entry point's default", env: map[string]string{"HOME": "/h"}, def: "/runner/core", want: "/runner/core"},
		{name: "then ~/.core", env: map[string]string{"HOME": "/h"}, want: "/h/.core"},
		{name: "nothing", env: map[string]string{}, wantErr: "neither CORE_HOME nor HOME is set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Home(envOf(tt.env), tt.def)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestValuePrecedence(t *testing.T) {
	t.Parallel()
	env := Env{Getenv: envOf(map[string]string{"CORE_SESSION_MAX_TURNS": "9", "OPENAI_API_KEY": "sk-openai"}), Defaults: map[string]string{MaxTurns: "3", Model: "mine"}}
	assert.Equal(t, "5", Value(env, Values{MaxTurns: "5"}, MaxTurns), "the entry point's value wins")
	assert.Equal(t, "9", Value(env, nil, MaxTurns), "then the environment")
	assert.Equal(t, "mine", Value(env, nil, Model), "then the entry point's default")
	assert.Equal(t, "sk-openai", Value(env, nil, APIKey), "OPENAI_API_KEY is read everywhere")
	env.Getenv = envOf(map[string]string{"CORE_SESSION_API_KEY": "sk-core", "OPENAI_API_KEY": "sk-openai"})
	assert.Equal(t, "sk-core", Value(env, nil, APIKey))
}

func TestSettingNames(t *testing.T) {
	t.Parallel()
	s, ok := Lookup(MaxTurns)
	require.True(t, ok)
	assert.Equal(t, "--max-turns", s.FlagName())
	assert.Equal(t, "max_turns", s.InputName())
	assert.Equal(t, "CORE_SESSION_MAX_TURNS", s.Env())
	seen := map[string]bool{}
	for _, s := range Settings() {
		assert.False(t, seen[s.Name], "setting %s twice", s.Name)
		seen[s.Name] = true
		assert.NotNil(t, s.apply, s.Name)
	}
}

// TestActionDeclaresEveryInput: every setting the Action takes is an input
// of action.yml, so a new setting cannot be forgotten there.
func TestActionDeclaresEveryInput(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "action.yml"))
	require.NoError(t, err)
	for _, s := range Settings() {
		if s.Input {
			assert.Contains(t, string(b), "\n  "+s.InputName()+":\n", "action.yml lacks the input %s", s.InputName())
		}
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	srv := llm.NewModelServer(t)
	home := t.TempDir()
	env := Env{Getenv: envOf(map[string]string{
		"CORE_HOME": home, "CORE_SESSION_SANDBOX": "off", "PATH": os.Getenv("PATH"),
		"CORE_SESSION_DISCOVER": "http://127.0.0.1:9," + srv.URL, "OPENAI_API_KEY": "sk-secret-key",
		"CORE_SESSION_TIMEOUT": "45m", "CORE_SESSION_BUILD_CEILING": "30m",
	})}
	ready, err := Options(t.Context(), env, Values{MaxTurns: "7", Verify: "build"})
	require.NoError(t, err)
	o := ready.Options
	assert.True(t, ready.Discovered)
	assert.Equal(t, srv.URL, o.Inference.InferenceURL, "the first candidate that answers")
	assert.Equal(t, 7, o.Limits.MaxTurns)
	assert.Equal(t, "45m0s", o.Limits.Timeout.String())
	assert.Equal(t, "30m0s", o.Verification.BuildCeiling.String(), "--build-ceiling")
	assert.Equal(t, lang.TierBuild, o.Verification.Verify)
	assert.Equal(t, session.DefaultModel, o.Inference.Model)
	assert.Contains(t, o.Services.Secrets, "sk-secret-key", "the model key is always a secret")
	assert.NotNil(t, o.Services.Store)
	assert.NotNil(t, o.Services.Client)
	assert.Equal(t, home, ready.Home)
}

func TestOptionsErrorsNameTheSetting(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	base := map[string]string{"CORE_HOME": home, "CORE_SESSION_SANDBOX": "off", "CORE_SESSION_INFERENCE_URL": "http://127.0.0.1:9"}
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "chromium"), []byte("#!/bin/sh\n"), 0o755))
	tests := []struct {
		name   string
		env    map[string]string
		vals   Values
		option string
		flag   string
		input  string
		bot    string
	}{
		{name: "bad turns", vals: Values{MaxTurns: "many"}, option: MaxTurns,
			flag: `--max-turns: must be a positive number, got "many"`, input: `the max_turns input: must be a positive number`, bot: "CORE_SESSION_MAX_TURNS: must be a positive number"},
		{name: "test tier without sandbox", vals: Values{Verify: "test"}, option: Verify,
			flag: "--verify: the test tier runs workspace code", input: "the verify input: the test tier", bot: "CORE_SESSION_VERIFY: the test tier"},
		{name: "no browser", env: map[string]string{"PATH": "/nonexistent"}, vals: Values{Browser: "true"}, option: BrowserExec,
			flag: "--browser-exec: no browser found on PATH (looked for chromium, chromium-browser, google-chrome, google-chrome-stable): install Chromium (Debian, Ubuntu: apt-get install chromium)", input: "the browser_exec input: no browser found", bot: "CORE_SESSION_BROWSER_EXEC: no browser found"},
		{name: "named browser missing", env: map[string]string{"PATH": "/nonexistent"}, vals: Values{Browser: "true", BrowserExec: "/opt/chrome/chrome"}, option: BrowserExec,
			flag: `--browser-exec: "/opt/chrome/chrome" is not found: install Chromium`, input: "the browser_exec input: ", bot: "CORE_SESSION_BROWSER_EXEC: "},
		{name: "browser without a box, attended or not", env: map[string]string{"PATH": bin}, vals: Values{Browser: "true"}, option: Browser,
			flag:  "--browser: the browser runs only inside the run's box, and this run can have none (CORE_SESSION_SANDBOX=off): run where the sandbox works",
			input: "the browser input: the browser runs only inside the run's box", bot: "CORE_SESSION_BROWSER: the browser runs only inside the run's box"},
		{name: "signing key missing", vals: Values{SigningKey: "/nonexistent/id_ed25519"}, option: SigningKey,
			flag: "--signing-key: read the signing key: open /nonexistent/id_ed25519", input: "the signing_key input: read the signing key", bot: "CORE_SESSION_SIGNING_KEY: read the signing key"},
		{name: "signing key not a private key", vals: Values{SigningKey: "-----BEGIN PUBLIC KEY-----\nx\n"}, option: SigningKey,
			flag: "--signing-key: not a private key core can sign with", input: "the signing_key input: not a private key", bot: "CORE_SESSION_SIGNING_KEY: not a private key"},
		{name: "no model server", env: map[string]string{"CORE_SESSION_INFERENCE_URL": "", "CORE_SESSION_DISCOVER": "http://127.0.0.1:9"}, option: InferenceURL,
			flag: "--inference-url: no OpenAI-compatible model server found", input: "the inference_url input: no OpenAI", bot: "CORE_SESSION_INFERENCE_URL: no OpenAI"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := map[string]string{}
			for k, v := range base {
				m[k] = v
			}
			for k, v := range tt.env {
				m[k] = v
			}
			_, err := Options(t.Context(), Env{Getenv: envOf(m)}, tt.vals)
			var ce *session.ConfigError
			require.True(t, errors.As(err, &ce), "%v", err)
			assert.Equal(t, tt.option, ce.Option)
			assert.ErrorContains(t, Word(err, FlagWording), tt.flag)
			assert.ErrorContains(t, Word(err, InputWording), tt.input)
			assert.ErrorContains(t, Word(err, EnvWording), tt.bot)
			assert.True(t, errors.As(Word(err, FlagWording), &ce), "a worded error is still a ConfigError")
			assert.Equal(t, state.FailConfiguration, session.FailureKindOf(Word(err, InputWording)))
		})
	}
}

// TestDeadModelServerIsInfrastructure: a model server the user named that
// does not answer is down, an outage (infrastructure); the setting itself
// is not wrong. One that answers, even 503, passes the check: the turns
// retry it.
func TestDeadModelServerIsInfrastructure(t *testing.T) {
	t.Parallel()
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	loading := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "Loading model", http.StatusServiceUnavailable)
	}))
	t.Cleanup(loading.Close)
	env := func(url string) Env {
		return Env{Getenv: envOf(map[string]string{"CORE_HOME": t.TempDir(), "CORE_SESSION_SANDBOX": "off", "CORE_SESSION_INFERENCE_URL": url})}
	}

	_, err := Options(t.Context(), env(dead.URL), Values{})
	var ie *session.InfraError
	require.ErrorAs(t, err, &ie)
	var ce *session.ConfigError
	assert.False(t, errors.As(err, &ce), "a dead server is not a bad setting: %v", err)
	assert.Equal(t, state.FailInfrastructure, session.FailureKindOf(Word(err, InputWording)))
	assert.ErrorContains(t, err, "no OpenAI-compatible model server answers at "+dead.URL)

	_, err = Options(t.Context(), env(loading.URL), Values{})
	assert.NoError(t, err, "a server that answers is up, whatever it says")
}

func TestWordEngineOptions(t *testing.T) {
	t.Parallel()
	err := &session.ConfigError{Option: "base", Err: errors.New(`branch "x" not found`)}
	assert.EqualError(t, Word(err, FlagWording), `--base: branch "x" not found`)
	assert.EqualError(t, Word(err, InputWording), `the base input: branch "x" not found`)
	assert.EqualError(t, Word(err, EnvWording), `the run's base: branch "x" not found`)
	plain := errors.New("plain")
	assert.Equal(t, plain, Word(plain, FlagWording))
}

// TestVerifyAuto: auto is build, raised to test when the sandbox works;
// an explicit test with a failing sandbox fails clearly.
func TestVerifyAuto(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'bubblewrap 0.8.0'; exit 0; fi\necho 'bwrap: Creating new namespace failed: Operation not permitted' >&2\nexit 1\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bwrap"), []byte(script), 0o755))
	broken := sandbox.New(sandbox.Config{Home: t.TempDir(), Path: dir + ":" + os.Getenv("PATH")})

	ready := &Ready{}
	tier, err := verifyTier(t.Context(), broken, "auto", ready)
	require.NoError(t, err)
	assert.Equal(t, lang.TierBuild, tier)
	require.Len(t, ready.Notices, 1)
	assert.Contains(t, ready.Notices[0], "the sandbox is not usable here (user namespaces are refused")

	_, err = verifyTier(t.Context(), broken, "test", ready)
	assert.ErrorContains(t, err, "the test tier runs workspace code and needs the sandbox")

	tier, err = verifyTier(t.Context(), broken, "build", ready)
	require.NoError(t, err)
	assert.Equal(t, lang.TierBuild, tier)

	if p := sandbox.New(sandbox.Config{Home: t.TempDir(), Path: os.Getenv("PATH")}).Probe(t.Context()); p.Usable {
		tier, err = verifyTier(t.Context(), sandbox.New(sandbox.Config{Home: t.TempDir(), Path: os.Getenv("PATH")}), "auto", &Ready{})
		require.NoError(t, err)
		assert.Equal(t, lang.TierTest, tier, "auto rises to test where the sandbox works")
	} else if os.Getenv("CORE_REQUIRE_BWRAP") == "1" {
		t.Fatalf("CORE_REQUIRE_BWRAP=1 but the sandbox is not usable: %s", p.Cause)
	}
}

// TestNothingCreatedForARunThatCannotStart: a bad setting or no model
// server is found before anything is written under the state directory.
func TestNothingCreatedForARunThatCannotStart(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	env := Env{Getenv: envOf(map[string]string{"CORE_HOME": home, "CORE_SESSION_SANDBOX": "off", "CORE_SESSION_DISCOVER": "http://127.0.0.1:9"})}
	_, err := Options(t.Context(), env, nil)
	require.Error(t, err)
	_, err = os.Stat(home)
	assert.True(t, os.IsNotExist(err), "the state directory was created: %v", err)
}

// TestModelRetriesAreCounted: a model server that keeps answering 5xx is
// tried DefaultMaxAttempts times, each retry says "n/6", and the call then
// fails as transient (the engine fails the run as infrastructure).
func TestModelRetriesAreCounted(t *testing.T) {
	t.Parallel()
	srv := llm.NewModelServer(t)
	srv.AllowExhaustion()
	var retries []model.Retry
	env := Env{Getenv: envOf(map[string]string{
		"CORE_HOME": t.TempDir(), "CORE_SESSION_SANDBOX": "off", "CORE_SESSION_INFERENCE_URL": srv.URL,
	}), Backoff: model.Backoff{Initial: time.Millisecond, Max: time.Millisecond}, OnRetry: func(r model.Retry) { retries = append(retries, r) }}
	ready, err := Options(t.Context(), env, Values{Verify: "build"})
	require.NoError(t, err)
	_, err = ready.Options.Services.Client.Complete(t.Context(), []model.Message{{Role: model.RoleUser, Content: "hi"}})
	var me *model.Error
	require.ErrorAs(t, err, &me)
	assert.Equal(t, model.KindTransient, me.Kind)
	assert.Equal(t, model.DefaultMaxAttempts, me.Attempts)
	assert.Len(t, srv.Requests(), model.DefaultMaxAttempts, "the server was asked once an attempt")
	require.Len(t, retries, model.DefaultMaxAttempts-1)
	assert.Contains(t, retries[0].String(), "500 Internal Server Error, retry 2/6 in")
}

func TestPriceAndBudgetSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		vals       Values
		env        map[string]string
		endpoint   [2]string // the endpoint's price per token, if any
		want       *budget.Price
		wantBudget budget.Budget
		wantErr    string
	}{
		{name: "none", want: nil},
		{name: "one price for both", vals: Values{PricePerMtok: "2"},
			want: &budget.Price{InputPerMtok: 2, OutputPerMtok: 2, Source: budget.PriceFromSettings}},
		{name: "two prices", vals: Values{PricePerMtok: "0.5, 1.5"},
			want: &budget.Price{InputPerMtok: 0.5, OutputPerMtok: 1.5, Source: budget.PriceFromSettings}},
		{name: "each its own, over price-per-mtok", vals: Values{PricePerMtok: "9", PriceInput: "1", PriceOutput: "$3"},
			want: &budget.Price{InputPerMtok: 1, OutputPerMtok: 3, Source: budget.PriceFromSettings}},
		{name: "from the environment", env: map[string]string{"CORE_SESSION_PRICE_INPUT_PER_MTOK": "1", "CORE_SESSION_PRICE_OUTPUT_PER_MTOK": "2", "CORE_SESSION_BUDGET_USD": "$2.50", "CORE_SESSION_BUDGET_TOKENS": "90000"},
			want: &budget.Price{InputPerMtok: 1, OutputPerMtok: 2, Source: budget.PriceFromSettings}, wantBudget: budget.Budget{USD: 2.5, Tokens: 90000}},
		{name: "the endpoint's", endpoint: [2]string{"0.0000005", "0.0000015"},
			want: &budget.Price{InputPerMtok: 0.5, OutputPerMtok: 1.5, Source: budget.PriceFromEndpoint}},
		{name: "settings over the endpoint's", vals: Values{PricePerMtok: "1"}, endpoint: [2]string{"0.0000005", "0.0000015"},
			want: &budget.Price{InputPerMtok: 1, OutputPerMtok: 1, Source: budget.PriceFromSettings}},
		{name: "half a price", vals: Values{PriceInput: "1"}, wantErr: "price-output-per-mtok: is needed too: a price for prompt tokens was set"},
		{name: "three prices", vals: Values{PricePerMtok: "1 2 3"}, wantErr: "price-per-mtok: must be one or two prices"},
		{name: "a word", vals: Values{PriceOutput: "cheap"}, wantErr: `price-output-per-mtok: must be a price in dollars per million tokens such as 0.5, got "cheap"`},
		{name: "a budget of nothing", vals: Values{BudgetUSD: "0"}, wantErr: "budget-usd: must be a positive amount of dollars"},
		{name: "tokens", vals: Values{BudgetTokens: "lots"}, wantErr: "budget-tokens: must be a positive number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llm.NewModelServer(t)
			if tt.endpoint[0] != "" {
				srv.SetPrice(tt.endpoint[0], tt.endpoint[1])
			}
			m := map[string]string{"CORE_HOME": t.TempDir(), "CORE_SESSION_SANDBOX": "off", "PATH": os.Getenv("PATH"), "CORE_SESSION_INFERENCE_URL": srv.URL}
			for k, v := range tt.env {
				m[k] = v
			}
			ready, err := Options(t.Context(), Env{Getenv: envOf(m)}, tt.vals)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Error(t, Check(tt.vals), "refused before anything starts")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, ready.Options.Limits.Price)
			assert.Equal(t, tt.wantBudget, ready.Options.Limits.Budget)
		})
	}
}

func TestRepoIdentity(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(dir, link))
	tests := []struct {
		name, repo, want string
	}{
		{name: "none", repo: "", want: ""},
		{name: "a GitHub repository as given", repo: " acme/app ", want: "acme/app"},
		{name: "a local path, absolute and real", repo: link, want: dir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if real, err := filepath.EvalSymlinks(want); err == nil && want != "" && filepath.IsAbs(want) {
				want = real
			}
			assert.Equal(t, want, repoIdentity(tt.repo))
		})
	}
}

// TestBrowserSettings: --browser finds the binary before the run starts and
// carries its options; LANG reaches the browser, nothing else of core's
// environment does. The browser needs a box: the sandbox is on (it skips
// without bwrap unless CORE_REQUIRE_BWRAP=1).
func TestBrowserSettings(t *testing.T) {
	t.Parallel()
	srv := llm.NewModelServer(t)
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "chromium"), []byte("#!/bin/sh\n"), 0o755))
	env := Env{Getenv: envOf(map[string]string{
		"CORE_HOME": t.TempDir(), "PATH": "/nonexistent:" + bin + ":" + os.Getenv("PATH"),
		"CORE_SESSION_INFERENCE_URL": srv.URL, "LANG": "C.UTF-8", "GITHUB_TOKEN": "ghs_never",
		"CORE_SESSION_BROWSER_TIMEOUT": "5s",
	})}
	ready, err := Options(t.Context(), env, Values{Browser: "true", BrowserRemote: "true"})
	var ce *session.ConfigError
	if errors.As(err, &ce) && ce.Option == Browser && os.Getenv("CORE_REQUIRE_BWRAP") != "1" {
		t.Skipf("no box here (CORE_REQUIRE_BWRAP=1 makes this a failure): %v", err)
	}
	require.NoError(t, err)
	assert.Equal(t, session.BrowserOptions{On: true, Exec: filepath.Join(bin, "chromium"), Timeout: 5 * time.Second,
		AllowRemote: true, Env: []string{"LANG=C.UTF-8"}}, ready.Options.Browser)

	ready, err = Options(t.Context(), env, Values{})
	require.NoError(t, err)
	assert.False(t, ready.Options.Browser.On, "off unless asked for")
}

// TestSigningKeySetting: --signing-key takes a file, the input the key's
// text; either is the key the run signs with.
func TestSigningKeySetting(t *testing.T) {
	t.Parallel()
	srv := llm.NewModelServer(t)
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n"
	file := filepath.Join(t.TempDir(), "id")
	require.NoError(t, os.WriteFile(file, []byte(key), 0o600))
	for _, v := range []string{file, key} {
		env := Env{Getenv: envOf(map[string]string{"CORE_HOME": t.TempDir(), "CORE_SESSION_SANDBOX": "off", "CORE_SESSION_INFERENCE_URL": srv.URL})}
		ready, err := Options(t.Context(), env, Values{SigningKey: v})
		require.NoError(t, err)
		assert.True(t, ready.Options.Landing.SigningKey.Set())
	}
}
