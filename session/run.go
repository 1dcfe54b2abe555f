package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/session/protocol"
	"github.com/coreagent/core/session/tools"
)

// ConfigError is a problem with the options, found before or while a
// session starts: the user can fix it.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// Run starts a new session: it clones the repository into a workspace,
// drives the model until it calls done or a limit is hit, lands the result
// and writes the report. The report comes back whatever the ending; the
// error is set when the session could not even start.
func Run(ctx context.Context, opts Options) (*Report, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, &ConfigError{err}
	}
	if strings.TrimSpace(opts.Prompt) == "" && opts.Issue == 0 {
		return nil, &ConfigError{errors.New("a goal is required: give --prompt or --issue")}
	}
	org, err := openOrigin(ctx, opts)
	if err != nil {
		return nil, &ConfigError{err}
	}
	now := opts.Now()
	id := opts.ID
	if id == "" {
		id = NewID(now)
	} else if !validID(id) {
		return nil, &ConfigError{fmt.Errorf("%q is not a valid session id", id)}
	}
	t, err := org.target(ctx, opts, id)
	if err != nil {
		return nil, &ConfigError{err}
	}
	instruction := strings.TrimSpace(opts.Prompt)
	if opts.Issue != 0 {
		text, err := org.issue(ctx, opts.Issue, now)
		if err != nil {
			return nil, &ConfigError{err}
		}
		if instruction != "" {
			instruction += "\n\n"
		}
		instruction += text
	}
	mode, err := resolveToolCalls(ctx, opts)
	if err != nil {
		return nil, &ConfigError{err}
	}
	rec := &Record{
		ToolCalls:    mode,
		ID:           id,
		Repo:         org.name(),
		Base:         t.base,
		StartCommit:  t.sha,
		Branch:       t.branch,
		PullRequest:  t.pull,
		Issue:        opts.Issue,
		Prompt:       opts.Prompt,
		Status:       StatusPending,
		Model:        opts.Model,
		InferenceURL: opts.InferenceURL,
		Verify:       opts.Verify,
		Verified:     []Verification{},
		CreatedAt:    now,
		UpdatedAt:    now,
	}
	rec.Workspace = opts.Store.WorkspaceDir(rec.ID)
	if err := opts.Store.create(rec); err != nil {
		return nil, err
	}
	s, err := start(ctx, opts, rec, org)
	if err != nil {
		return nil, err
	}
	defer s.unlock()
	if err := org.clone(ctx, rec.Workspace, t); err != nil {
		return s.end(StatusFailed, FailInfrastructure, err), nil
	}
	return s.drive(ctx, instruction, true)
}

// Resume continues a persisted session with a new instruction: the
// transcript is replayed verbatim, the workspace reused, the limits apply
// afresh.
func Resume(ctx context.Context, id, instruction string, opts Options) (*Report, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, &ConfigError{err}
	}
	if strings.TrimSpace(instruction) == "" {
		return nil, &ConfigError{errors.New("resume needs an instruction: core session resume ID \"what to do next\"")}
	}
	rec, err := opts.Store.Load(id)
	if err != nil {
		return nil, &ConfigError{err}
	}
	if _, err := os.Stat(filepath.Join(rec.Workspace, ".git")); err != nil {
		return nil, &ConfigError{fmt.Errorf("session %s cannot be resumed: its workspace %s is gone", id, rec.Workspace)}
	}
	opts.Repo = rec.Repo
	org, err := openOrigin(ctx, opts)
	if err != nil {
		return nil, &ConfigError{err}
	}
	if rec.Status == StatusRunning {
		// Load said it is running, so a live process holds it.
		return nil, &ConfigError{fmt.Errorf("session %s is running in another process", id)}
	}
	// Options that belong to the session come from its record.
	opts.Verify, opts.Model = rec.Verify, rec.Model
	s, err := start(ctx, opts, rec, org)
	if err != nil {
		return nil, err
	}
	defer s.unlock()
	return s.drive(ctx, instruction, false)
}

// run is one live run of a session.
type run struct {
	opts   Options
	rec    *Record
	origin origin
	git    gitRunner
	tools  *tools.Set
	env    *tools.Env
	tr     *transcript
	unlock func()
	report *Report
	// redact replaces every secret with a mark; nil when there are none.
	redact *strings.Replacer
}

// scrub removes every secret core knows of from text.
func (s *run) scrub(text string) string {
	if s.redact == nil {
		return text
	}
	return s.redact.Replace(text)
}

// start locks the session, moves it to running and opens its transcript.
func start(ctx context.Context, opts Options, rec *Record, org origin) (*run, error) {
	unlock, err := opts.Store.lock(rec.ID)
	if err != nil {
		return nil, &ConfigError{err}
	}
	s := &run{opts: opts, rec: rec, origin: org, git: gitRunner{env: opts.GitEnv}, unlock: unlock, tools: tools.Default()}
	var pairs []string
	for _, secret := range opts.Secrets {
		if len(secret) >= 4 {
			pairs = append(pairs, secret, "[redacted]")
		}
	}
	if len(pairs) > 0 {
		s.redact = strings.NewReplacer(pairs...)
	}
	s.report = &Report{ID: rec.ID, Repo: rec.Repo, StartedAt: opts.Now(), DryRun: opts.DryRun, Verify: string(rec.Verify), Steps: []Step{}, Instructions: rec.Instructions}
	if err := rec.transition(StatusRunning, opts.Now()); err != nil {
		unlock()
		return nil, err
	}
	if err := opts.Store.save(rec); err != nil {
		unlock()
		return nil, err
	}
	tr, err := openTranscript(filepath.Join(opts.Store.Dir(rec.ID), transcriptFile))
	if err != nil {
		s.end(StatusFailed, FailInfrastructure, err)
		unlock()
		return nil, err
	}
	s.tr = tr
	prev := s.unlock
	s.unlock = func() { tr.close(); prev() }
	return s, nil
}

// prepare checks the sandbox against the tier and builds the tool
// environment.
func (s *run) prepare(ctx context.Context) error {
	if err := s.opts.Sandbox.Require(ctx, s.rec.Verify); err != nil {
		return &ConfigError{err}
	}
	usable, err := s.opts.Sandbox.Usable(ctx)
	if err != nil {
		return &ConfigError{err}
	}
	s.rec.Sandboxed = usable
	s.report.Sandboxed = usable
	ws, err := tools.NewWorkspace(s.rec.Workspace)
	if err != nil {
		return err
	}
	s.env = &tools.Env{
		Workspace:    ws,
		Tier:         s.rec.Verify,
		Runner:       s.opts.Sandbox,
		Approver:     s.opts.Approver,
		ShellTimeout: s.opts.ShellTimeout,
	}
	if f, ok := s.origin.(tools.IssueFiler); ok {
		s.env.Issues = scrubbingFiler{f: f, scrub: s.scrub}
	}
	return nil
}

// scrubbingFiler files issues with every secret removed from them.
type scrubbingFiler struct {
	f     tools.IssueFiler
	scrub func(string) string
}

func (sf scrubbingFiler) FileIssue(ctx context.Context, title, body string) (string, error) {
	return sf.f.FileIssue(ctx, sf.scrub(title), sf.scrub(body))
}

// verifyRule tells the model what run_shell runs unattended at the tier.
func verifyRule(tier sandbox.Tier) string {
	switch tier {
	case sandbox.TierBuild:
		return "run_shell runs these without approval, as plain commands (no shell syntax): go build, go vet, go list, go mod download|tidy|verify|why|graph, gofmt -l, flutter analyze. Anything else needs a human's approval and may be declined."
	case sandbox.TierTest:
		return "run_shell runs these without approval, in a sandbox without network, as plain commands (no shell syntax): go build, go vet, go test, go list, go mod download|tidy|verify|why|graph, gofmt -l, flutter analyze, flutter test. Anything else needs a human's approval and may be declined."
	}
	return "Every run_shell command needs a human's approval and may be declined."
}

// systemPrompt builds the session's system prompt, with the repository's
// instructions for agents from the start commit.
func (s *run) systemPrompt(ctx context.Context) (string, error) {
	text, used, err := repoInstructions(ctx, s.git, s.rec.Workspace, s.rec.StartCommit)
	if err != nil {
		return "", err
	}
	s.rec.Instructions, s.report.Instructions = used, used
	return protocol.SystemPrompt(protocol.PromptConfig{
		ToolDocs:     s.tools.Doc(),
		Verify:       verifyRule(s.rec.Verify),
		Native:       s.native(),
		Instructions: s.scrub(text),
	}), nil
}
