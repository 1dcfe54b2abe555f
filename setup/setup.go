package setup

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/browser"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/mcptool"
	"github.com/coreagent/core/session/model"
)

// Env is what a run is set up from besides the entry point's inputs.
type Env struct {
	// Getenv reads the environment; nothing here calls os.Getenv.
	Getenv func(string) string
	// Home is the entry point's state directory, used when CORE_HOME is
	// unset: the CLI leaves it empty ($HOME/.core), the Action gives
	// $RUNNER_TEMP/core, the bot <data-dir>/core.
	Home string
	// Defaults are the entry point's own defaults, by setting name, below
	// the environment (the Action's verify is auto).
	Defaults map[string]string
	// HTTPClient talks to the model; nil is the default.
	HTTPClient *http.Client
	// OnRetry, when set, is told of each model request that will be
	// retried (the CLI and the Action print it).
	OnRetry func(model.Retry)
	// Backoff spaces the model's retries; zero is model.DefaultBackoff
	// (tests shorten it).
	Backoff model.Backoff
	// Observer, when set, watches every run's events: the process's
	// OpenTelemetry exporter (telemetry.New), made once by cmd/core.
	Observer live.Observer
	// Self is core's own executable, which serves Go's build cache inside
	// the sandbox (`core sandbox gocache`); empty means confined builds do
	// without the user's build cache.
	Self string
}

// Values are the settings an entry point was given, by setting name.
type Values map[string]string

// Ready is a run set up: the options (store, sandbox, model client,
// secrets, git environment and every setting) and what the entry point may
// want to tell its user.
type Ready struct {
	Options session.Options
	Home    string
	// Discovered is set when the model endpoint was found by probing.
	Discovered bool
	// Notices are things worth saying (verify auto fell back to build).
	Notices []string
}

// resolved is the state settings write into while a run is set up.
type resolved struct {
	opts       session.Options
	apiKey     string
	verify     string
	candidates []string
	// priceIn and priceOut are the price settings, per million tokens.
	priceIn, priceOut *float64
	// browserExec is --browser-exec as given.
	browserExec string
	// mcpInput is the Action's mcp_config, parsed (mcp.go).
	mcpInput *mcptool.File
}

// Home resolves the state directory: CORE_HOME, else the entry point's
// default, else $HOME/.core. One rule for every entry point.
func Home(getenv func(string) string, def string) (string, error) {
	h := getenv("CORE_HOME")
	if h == "" {
		h = def
	}
	if h == "" {
		if home := getenv("HOME"); home != "" {
			h = filepath.Join(home, ".core")
		}
	}
	if h == "" {
		return "", errors.New("neither CORE_HOME nor HOME is set: set CORE_HOME to the directory core keeps its state in")
	}
	return filepath.Abs(h)
}

// Sandbox builds the sandbox from the environment (CORE_SESSION_SANDBOX,
// PATH, HOME, LANG, the module proxy settings) for the state directory;
// self is core's executable (Env.Self).
func Sandbox(getenv func(string) string, home, self string) (*sandbox.Sandbox, error) {
	return sandboxFor(getenv, home, self, "")
}

// sandboxFor is Sandbox for a run on repo (owner/name, or a local path),
// whose confined builds then share a build cache with that repository's
// later runs only; "" shares none.
func sandboxFor(getenv func(string) string, home, self, repo string) (*sandbox.Sandbox, error) {
	cfg, err := sandbox.ConfigFromEnv(home, getenv)
	if err != nil {
		return nil, &session.ConfigError{Option: "sandbox", Err: err}
	}
	cfg.CacheProg = self
	cfg.Repo = repoIdentity(repo)
	return sandbox.New(cfg), nil
}

// repoIdentity names a repository the same way whoever gives it: owner/name
// as given, a local path as its absolute, real path.
func repoIdentity(repo string) string {
	repo = strings.TrimSpace(repo)
	if repo == "" || gh.IsRepoName(repo) {
		return repo
	}
	abs, err := filepath.Abs(repo)
	if err != nil {
		return repo
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// Value is a setting's value: the entry point's, else the environment's,
// else the entry point's default. The api-key also reads OPENAI_API_KEY.
func Value(env Env, vals Values, name string) string {
	if v := strings.TrimSpace(vals[name]); v != "" {
		return v
	}
	s, ok := Lookup(name)
	if ok {
		if v := strings.TrimSpace(env.Getenv(s.Env())); v != "" {
			return v
		}
	}
	if name == APIKey {
		if v := strings.TrimSpace(env.Getenv("OPENAI_API_KEY")); v != "" {
			return v
		}
	}
	return strings.TrimSpace(env.Defaults[name])
}

// Options sets a run up: every setting resolved, the sandbox, the verify
// tier checked against it, the model endpoint (given, or discovered among
// the candidates) and its client, and, once all that passed, the store
// under the state directory. The model's API key
// is always a secret. A bad setting is a *session.ConfigError naming it.
func Options(ctx context.Context, env Env, vals Values) (*Ready, error) {
	r, err := resolve(env, vals)
	if err != nil {
		return nil, err
	}
	price, err := r.price()
	if err != nil {
		return nil, err
	}
	r.opts.Limits.Price = price
	if err := r.browser(env.Getenv); err != nil {
		return nil, err
	}
	home, err := Home(env.Getenv, env.Home)
	if err != nil {
		return nil, &session.ConfigError{Option: "home", Err: err}
	}
	if err := CheckHome(home); err != nil {
		return nil, &session.ConfigError{Option: "home", Err: err}
	}
	if err := r.mcp(env.Getenv, home); err != nil {
		return nil, &session.ConfigError{Option: MCPConfig, Err: err}
	}
	sb, err := sandboxFor(env.Getenv, home, env.Self, r.opts.Goal.Repo)
	if err != nil {
		return nil, err
	}
	if err := session.CheckBrowserBox(ctx, r.opts.Browser, sb); err != nil {
		return nil, err
	}
	ready := &Ready{Home: home}
	tier, err := verifyTier(ctx, sb, r.verify, ready)
	if err != nil {
		return nil, &session.ConfigError{Option: Verify, Err: err}
	}
	url, err := r.endpoint(ctx, env, ready)
	if err != nil {
		return nil, err
	}
	// The store is made with the first session: a run refused before
	// it starts (a missing repository) leaves nothing behind.
	store, err := session.NewStore(home)
	if err != nil {
		return nil, err
	}
	o := r.opts
	if o.Inference.Model == "" {
		o.Inference.Model = session.DefaultModel
	}
	o.Inference.InferenceURL, o.Verification.Verify, o.Services.Store, o.Services.Sandbox = url, tier, store, sb
	client := model.New(model.Config{BaseURL: url, APIKey: r.apiKey, Model: o.Inference.Model, HTTPClient: env.HTTPClient,
		MaxAttempts: model.DefaultMaxAttempts, Backoff: env.Backoff, OnRetry: env.OnRetry})
	o.Services.Client = client
	if o.Limits.Price == nil {
		// No price set: the endpoint's, when it lists one (else the cost
		// is unknown: "no price set").
		if in, out, ok, err := client.Price(ctx); err == nil && ok {
			o.Limits.Price = &budget.Price{InputPerMtok: in, OutputPerMtok: out, Source: budget.PriceFromEndpoint}
		}
	}
	if r.apiKey != "" {
		o.Services.Secrets = append(o.Services.Secrets, r.apiKey)
	}
	o.Services.GitEnv = session.GitEnv(env.Getenv)
	o.Live.Observer = env.Observer
	ready.Options = o
	return ready, nil
}

// resolve applies every setting that has a value, from the entry point
// or the environment.
func resolve(env Env, vals Values) (*resolved, error) {
	r := &resolved{}
	for _, s := range Settings() {
		v := Value(env, vals, s.Name)
		if v == "" {
			continue
		}
		if err := s.apply(r, v); err != nil {
			if strings.TrimSpace(vals[s.Name]) == "" && strings.TrimSpace(env.Getenv(s.Env())) != "" {
				// From the environment: the variable is the name to give,
				// whatever the entry point.
				return nil, &session.ConfigError{Err: fmt.Errorf("%s %w", s.Env(), err)}
			}
			return nil, &session.ConfigError{Option: s.Name, Err: err}
		}
	}
	return r, nil
}

// endpoint is the model's base URL: the one given, checked, or the first
// of the candidates that answers (ready.Discovered). An outage is an
// *session.InfraError, anything else the inference URL's ConfigError.
func (r *resolved) endpoint(ctx context.Context, env Env, ready *Ready) (string, error) {
	var err error
	candidates := r.candidates
	if len(candidates) == 0 {
		candidates = model.DefaultCandidates()
	}
	url := r.opts.Inference.InferenceURL
	if url != "" {
		url, _, err = model.Endpoint(ctx, env.HTTPClient, url)
	} else {
		url, err = model.Discover(ctx, candidates, env.HTTPClient)
		ready.Discovered = err == nil
	}
	if session.Outage(err) {
		return "", &session.InfraError{Err: err}
	}
	if err != nil {
		return "", &session.ConfigError{Option: InferenceURL, Err: err}
	}
	return url, nil
}

// browser finds the browser binary before anything starts, when the run
// has one: a missing browser is the user's to install.
func (r *resolved) browser(getenv func(string) string) error {
	if !r.opts.Browser.On {
		return nil
	}
	exe, err := browser.Find(r.browserExec, getenv("PATH"))
	if err != nil {
		return &session.ConfigError{Option: BrowserExec, Err: err}
	}
	r.opts.Browser.Exec = exe
	names := []string{"LANG"}
	if r.opts.Browser.Headed {
		// A window needs the person's display.
		names = append(names, "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR")
	}
	for _, n := range names {
		if v := getenv(n); v != "" {
			r.opts.Browser.Env = append(r.opts.Browser.Env, n+"="+v)
		}
	}
	return nil
}

// verifyTier parses the tier: auto is build, raised to test where the
// sandbox works; test needs the sandbox.
func verifyTier(ctx context.Context, sb *sandbox.Sandbox, v string, ready *Ready) (lang.Tier, error) {
	if v == "auto" {
		if usable, err := sb.Usable(ctx); err == nil && usable {
			return lang.TierTest, nil
		}
		ready.Notices = append(ready.Notices, fmt.Sprintf("the sandbox is not usable here (%s): verifying with build only", sb.Probe(ctx).Summary()))
		return lang.TierBuild, nil
	}
	tier, err := lang.ParseTier(v)
	if err != nil {
		return "", err
	}
	if err := sb.Require(ctx, tier); err != nil {
		return "", err
	}
	return tier, nil
}

// AddGitHub gives the options a GitHub client: its token becomes a secret
// the session never writes.
func AddGitHub(o *session.Options, c *gh.Client) {
	o.Services.GitHub = c
	o.Services.Secrets = append(o.Services.Secrets, c.Secrets()...)
}

// Check parses the values an entry point was given, without the
// environment, so that a bad one is refused before anything starts.
func Check(vals Values) error {
	r := &resolved{}
	for _, s := range Settings() {
		v := strings.TrimSpace(vals[s.Name])
		if v == "" {
			continue
		}
		if err := s.apply(r, v); err != nil {
			return &session.ConfigError{Option: s.Name, Err: err}
		}
	}
	if _, err := r.price(); err != nil {
		return err
	}
	return nil
}
