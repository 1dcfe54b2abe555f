package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/land"
	"github.com/coreagent/core/session/scrub"
	"github.com/coreagent/core/session/state"
	"github.com/coreagent/core/session/tools"
)

// Land lands the work of a session whose model called done, without
// another model turn (core session land): after a dry run, a declined
// landing, or a refusal the user has since dealt with (their uncommitted
// work committed, the workflow changes allowed). The work goes through the
// same checks and landing as at the end of a run, held to the contract its
// last run recorded; the harness does not run the checks again, so only
// the tree that run froze and checked lands: a workspace that changed
// since is refused (resume the session to check it again).
func Land(ctx context.Context, id string, opts Options) (*Report, error) {
	rep, err := landFinished(ctx, id, opts)
	return rep, scrub.New(opts.Services.Secrets...).Error(err)
}

func landFinished(ctx context.Context, id string, opts Options) (*Report, error) {
	if opts.Services.Store == nil {
		return nil, errors.New("no session store")
	}
	if opts.Services.Now == nil {
		opts.Services.Now = time.Now
	}
	if opts.Live.Progress == nil {
		opts.Live.Progress = io.Discard
	}
	if opts.Services.Output == nil {
		opts.Services.Output = io.Discard
	}
	opts.Services.Approver, opts.Live.Interactive, opts.Landing.DryRun = tools.DenyApprover{}, false, false
	rec, err := opts.Services.Store.Load(id)
	if err != nil {
		return nil, configError(err)
	}
	if rec.Status.Live() {
		return nil, &ConfigError{Err: fmt.Errorf("session %s is running in another process", id)}
	}
	if rec.Summary == "" {
		return nil, &ConfigError{Err: fmt.Errorf("session %s has no finished work to land: its model never called done (core session resume %s \"finish the work\" continues it)", id, id)}
	}
	if _, err := os.Stat(filepath.Join(rec.Workspace, ".git")); err != nil {
		return nil, &ConfigError{Err: fmt.Errorf("session %s cannot be landed: its workspace %s is gone", id, rec.Workspace)}
	}
	recorded, err := recordedReport(opts.Services.Store, id)
	if err != nil {
		return nil, err
	}
	// Only the tree its last run froze and checked lands: a workspace
	// changed since (by hand, or by a process that outlived the run) is
	// checked again by a resume, never landed unchecked.
	now, err := gitRunner{env: opts.Services.GitEnv, scrub: scrub.New(opts.Services.Secrets...)}.landGit().WorkTree(ctx, rec.Workspace)
	if err != nil {
		return nil, err
	}
	if err := land.SameTree(recorded.Tree, now, fmt.Sprintf("the workspace changed since its checks: resume the session to check it again (core session resume %s \"check it again\")", id)); err != nil {
		return nil, &ConfigError{Err: err}
	}
	opts.Goal.Repo = rec.Repo
	org, err := openOrigin(ctx, opts)
	if err != nil {
		return nil, configError(err)
	}
	opts.Landing.AllowWorkflowChanges = rec.AllowWorkflowChanges
	s, ctx, err := start(ctx, opts, rec, org)
	if err != nil {
		return nil, err
	}
	defer s.unlock()
	s.report.Contract, s.outputsGone = recorded.Contract, true
	s.priorReceipt = opts.Services.Store.loadReceipt(id)
	if err := s.moveTo(state.Active); err != nil {
		return s.end(state.Failed, state.FailError, err), nil
	}
	changed, err := s.setTree(ctx, recorded.Tree)
	if err != nil {
		return s.end(state.Failed, state.FailInfrastructure, err), nil
	}
	if !changed {
		fmt.Fprintln(s.opts.Live.Progress, "nothing to land: the session changed no file")
		return s.conclude(outcome{status: state.Idle}), nil
	}
	next := s.land(ctx, s.contractEnding())
	s.keepReceipt(ctx)
	return s.conclude(next), nil
}

// landedReport is what core session land reads of the report of the
// session's last run.
type landedReport struct {
	Contract *contract.Contract `json:"contract"`
	Tree     string             `json:"tree"`
}

// recordedReport is the contract session id's last run wrote in its report
// (nil: unverified) and the tree it froze at done ("" when it froze none,
// or has no report).
func recordedReport(store *Store, id string) (landedReport, error) {
	var rep landedReport
	b, err := store.ReportJSON(id)
	if errors.Is(err, os.ErrNotExist) {
		return rep, nil
	}
	if err != nil {
		return rep, err
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return rep, fmt.Errorf("read the contract of session %s: %s is damaged: %w", id, ReportFile, err)
	}
	return rep, nil
}
