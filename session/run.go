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
	if strings.TrimSpace(opts.Prompt) == "" && strings.TrimSpace(opts.IssueText) == "" {
		return nil, &ConfigError{errors.New("a goal is required: give --prompt or --issue")}
	}
	g := gitRunner{env: opts.GitEnv}
	repo, err := openLocalRepo(ctx, g, opts.Repo)
	if err != nil {
		return nil, &ConfigError{err}
	}
	base, sha, err := repo.resolveBase(ctx, opts.Base)
	if err != nil {
		return nil, &ConfigError{err}
	}
	now := opts.Now()
	rec := &Record{
		ID:           newID(now),
		Repo:         repo.path,
		Base:         base,
		StartCommit:  sha,
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
	rec.Branch = opts.Branch
	if rec.Branch == "" {
		rec.Branch = "core-session/" + rec.ID
	}
	if err := checkBranchName(ctx, g, rec.Branch); err != nil {
		return nil, &ConfigError{err}
	}
	if err := repo.checkNotCheckedOut(ctx, rec.Branch); err != nil {
		return nil, &ConfigError{err}
	}
	rec.Workspace = opts.Store.WorkspaceDir(rec.ID)
	if err := opts.Store.create(rec); err != nil {
		return nil, err
	}
	s, err := start(ctx, opts, rec, repo)
	if err != nil {
		return nil, err
	}
	defer s.unlock()
	if err := repo.clone(ctx, rec.Workspace, rec.Branch, sha); err != nil {
		return s.end(StatusFailed, FailInfrastructure, err), nil
	}
	instruction := opts.Prompt
	if opts.IssueText != "" {
		if instruction != "" {
			instruction += "\n\n"
		}
		instruction += opts.IssueText
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
	g := gitRunner{env: opts.GitEnv}
	repo, err := openLocalRepo(ctx, g, rec.Repo)
	if err != nil {
		return nil, &ConfigError{err}
	}
	if rec.Status == StatusRunning {
		// Load said it is running, so a live process holds it.
		return nil, &ConfigError{fmt.Errorf("session %s is running in another process", id)}
	}
	// Options that belong to the session come from its record.
	opts.Verify, opts.Model = rec.Verify, rec.Model
	s, err := start(ctx, opts, rec, repo)
	if err != nil {
		return nil, err
	}
	defer s.unlock()
	return s.drive(ctx, instruction, false)
}

// checkBranchName refuses a branch name git would refuse.
func checkBranchName(ctx context.Context, g gitRunner, branch string) error {
	if _, err := g.run(ctx, "", "check-ref-format", "--branch", branch); err != nil {
		return fmt.Errorf("--branch %q is not a valid branch name", branch)
	}
	return nil
}

// run is one live run of a session.
type run struct {
	opts   Options
	rec    *Record
	repo   *localRepo
	git    gitRunner
	tools  *tools.Set
	env    *tools.Env
	tr     *transcript
	unlock func()
	report *Report
}

// start locks the session, moves it to running and opens its transcript.
func start(ctx context.Context, opts Options, rec *Record, repo *localRepo) (*run, error) {
	unlock, err := opts.Store.lock(rec.ID)
	if err != nil {
		return nil, &ConfigError{err}
	}
	s := &run{opts: opts, rec: rec, repo: repo, git: gitRunner{env: opts.GitEnv}, unlock: unlock, tools: tools.Default()}
	s.report = &Report{ID: rec.ID, Repo: rec.Repo, StartedAt: opts.Now(), DryRun: opts.DryRun, Verify: string(rec.Verify), Steps: []Step{}}
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
	return nil
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

// systemPrompt builds the session's system prompt.
func (s *run) systemPrompt() string {
	return protocol.SystemPrompt(protocol.PromptConfig{ToolDocs: s.tools.Doc(), Verify: verifyRule(s.rec.Verify)})
}
