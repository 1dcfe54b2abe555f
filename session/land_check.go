package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/coreagent/core/session/land"
	"github.com/coreagent/core/session/state"
	"github.com/coreagent/core/session/tools"
)

// FailLandingRefused is a session whose work core will not land as it
// is: it changes a workflow without --allow-workflow-changes, or adds a
// secret core knows of. The options were fine and the work is kept in the
// workspace; the error says what to do.
const FailLandingRefused state.FailureKind = "landing_refused"

// maxNamed is how many files a landing refusal names.
const maxNamed = 20

// checkLanding looks at everything the session would land (tree, the
// workspace frozen at done, against the start commit, whoever wrote it: a
// tool, a confined command, an approved one) and refuses what must not
// land: changes to what runs with the workflow token (see checkWorkflows)
// unless the user allowed them, a file GitHub would refuse for its size,
// and any file that adds a secret core knows of. It reads git objects
// only, never the live workspace. Nothing is committed or pushed when it
// refuses.
func (s *run) checkLanding(ctx context.Context, tree string) error {
	ws, from := s.rec.Workspace, s.rec.StartCommit
	changed, err := s.git.landGit().ChangedPaths(ctx, ws, from, tree)
	if err != nil {
		return err
	}
	if !s.rec.AllowWorkflowChanges {
		if err := s.checkWorkflows(ctx, tree, changed); err != nil {
			return err
		}
	}
	if err := s.checkSizes(ctx, tree, changed); err != nil {
		return err
	}
	if s.scrubber == nil {
		return nil
	}
	diffArgs := []string{"diff", "--no-color", "--no-ext-diff", "--no-renames", "--text", "--unified=0", from, tree}
	diff, err := s.git.run(ctx, ws, diffArgs...)
	if err != nil {
		return fmt.Errorf("diff the work: %w", err)
	}
	if !s.scrubber.Contains(land.AddedLines(diff)) {
		return nil
	}
	var holding []string
	for _, p := range changed {
		d, err := s.git.run(ctx, ws, append(diffArgs, "--", ":(literal)"+p)...)
		if err != nil {
			return fmt.Errorf("diff %s: %w", p, err)
		}
		if s.scrubber.Contains(land.AddedLines(d)) {
			holding = append(holding, p)
		}
	}
	return &LandingError{What: "adds a secret core holds (the GitHub token or the model endpoint's key)", Files: holding, Why: fmt.Sprintf(
		"Landing would publish it: remove it from the workspace %s and resume the session", ws)}
}

// checkWorkflows refuses changed paths that run with the workflow token:
// the workflows, .github/actions, and the local actions that a workflow
// uses (`uses: ./path`) at the start commit or in final, the tree that would land,
// so neither a new workflow pointing at a planted action nor an old one
// whose action changed gets through.
func (s *run) checkWorkflows(ctx context.Context, final string, changed []string) error {
	guard, err := s.guardAt(ctx, s.rec.StartCommit)
	if err != nil {
		return err
	}
	now, err := s.guardAt(ctx, final)
	if err != nil {
		return err
	}
	guard.Merge(now)
	var workflows, actions []string
	for _, p := range changed {
		switch {
		// .github itself: the directory replaced by a file or a link.
		case tools.InWorkflows(p) || strings.EqualFold(p, ".github"):
			workflows = append(workflows, p)
		case guard.Guards(p):
			actions = append(actions, p)
		}
	}
	what := "changes workflows"
	switch {
	case len(workflows) == 0 && len(actions) == 0:
		return nil
	case len(workflows) == 0:
		what = "changes actions that workflows run"
	case len(actions) > 0:
		what = "changes workflows and actions that workflows run"
	}
	return &LandingError{What: what, Files: append(workflows, actions...), Why: fmt.Sprintf(
		"A workflow, and an action it uses (under %s, or a local action named by `uses: ./…`), runs with the repository's secrets and the workflow's token on the next push, so core lands changes to them only when the user allows them: resume the session with --allow-workflow-changes (core session resume %s --allow-workflow-changes \"land it\"; in the Action, the allow_workflow_changes input), or undo the changes in %s",
		tools.ActionsDir, s.rec.ID, s.rec.Workspace)}
}

// LandingError is work that landing refused: what it does, the files that
// do it, and why it may not land and what to do.
type LandingError struct {
	What  string
	Files []string
	Why   string
}

func (e *LandingError) Error() string {
	names := e.Files
	more := ""
	if len(names) > maxNamed {
		more = fmt.Sprintf(" and %d more", len(names)-maxNamed)
		names = names[:maxNamed]
	}
	return fmt.Sprintf("not landed: the work %s: %s%s. %s. Nothing was committed or pushed.", e.What, strings.Join(names, ", "), more, e.Why)
}

// landingFailure classifies a failed landing check: a refusal, or git
// failing.
func landingFailure(err error) state.FailureKind {
	var le *LandingError
	if errors.As(err, &le) {
		return FailLandingRefused
	}
	return state.FailInfrastructure
}
