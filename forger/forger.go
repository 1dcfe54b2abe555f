// Package forger works forge briefs: on a schedule, when the repository
// arms it, it takes the oldest open issue labelled as a brief that nobody
// has claimed, claims it, and runs a session that opens a draft pull
// request closing it.
package forger

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/status"
)

// ArmVariable is the repository variable that arms the forger.
const ArmVariable = "CORE_FORGE_ENABLED"

// ClaimLabel marks a brief a run has claimed.
const ClaimLabel = "forge:claimed"

// Config says where the forger works.
type Config struct {
	Client      *gh.Client
	Owner, Repo string
	// Label marks forge briefs (the forge_label input).
	Label string
	// RunID names this run in its claim comment.
	RunID string
	// Getenv reads CORE_FORGE_ENABLED when a workflow passes the variable
	// in the environment.
	Getenv func(string) string
}

// Result is what a forger run did: a session's report, or why it ran none.
type Result struct {
	Report *session.Report
	Issue  int
	Reason string
}

func claimMarker(runID string) string { return fmt.Sprintf("<!-- core:claim:%s -->", runID) }

const claimPrefix = "<!-- core:claim:"

// Run works one brief, if the forger is armed and there is one. options
// builds the session's options only then: a disarmed forger, or one with
// nothing to do, needs no model server.
func Run(ctx context.Context, cfg Config, options func() (session.Options, error)) (Result, error) {
	armed, err := cfg.armed(ctx)
	if err != nil {
		return Result{}, err
	}
	if !armed {
		return Result{Reason: fmt.Sprintf("the forger is disarmed: set the repository variable %s to true to arm it", ArmVariable)}, nil
	}
	briefs, err := cfg.briefs(ctx)
	if err != nil {
		return Result{}, err
	}
	if len(briefs) == 0 {
		return Result{Reason: fmt.Sprintf("no open brief labelled %q is waiting (unclaimed, without an open core pull request)", cfg.Label)}, nil
	}
	opts, err := options()
	if err != nil {
		return Result{}, err
	}
	for _, n := range briefs {
		won, err := cfg.claim(ctx, n)
		if err != nil {
			return Result{}, err
		}
		if !won {
			continue // another run claimed it first
		}
		opts.Goal.Issue, opts.Goal.Prompt = n, ""
		rep, err := session.Run(ctx, opts)
		if err != nil || !rep.Status.Succeeded() {
			why := ""
			if err != nil {
				why = err.Error()
			} else {
				why = fmt.Sprintf("%s (%s): %s", rep.Status, rep.FailureKind, rep.Error)
			}
			if rerr := cfg.release(ctx, n, why); rerr != nil && err == nil {
				err = rerr
			}
		}
		return Result{Report: rep, Issue: n}, err
	}
	return Result{Reason: fmt.Sprintf("no open brief labelled %q is waiting (unclaimed, without an open core pull request)", cfg.Label)}, nil
}

// armed reads the arming variable: from the environment when a workflow
// passes it, else through the API.
func (cfg Config) armed(ctx context.Context) (bool, error) {
	if cfg.Getenv != nil {
		if v := strings.TrimSpace(cfg.Getenv(ArmVariable)); v != "" {
			return strings.EqualFold(v, "true"), nil
		}
	}
	v, ok, err := cfg.Client.Variable(ctx, cfg.Owner, cfg.Repo, ArmVariable)
	if err != nil {
		return false, err
	}
	return ok && strings.EqualFold(strings.TrimSpace(v), "true"), nil
}

// briefs lists the open briefs, oldest first, that are not pull requests,
// not claimed and have no open core pull request.
func (cfg Config) briefs(ctx context.Context) ([]int, error) {
	issues, err := cfg.Client.ListOpenIssues(ctx, cfg.Owner, cfg.Repo, []string{cfg.Label})
	if err != nil {
		return nil, err
	}
	pulls, err := cfg.Client.OpenPullRequests(ctx, cfg.Owner, cfg.Repo)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(issues, func(i, j int) bool { return issues[i].CreatedAt.Before(issues[j].CreatedAt) })
	var out []int
	for _, is := range issues {
		if is.IsPullRequest || hasLabel(is.Labels, ClaimLabel) || hasCorePull(pulls, is.Number) {
			continue
		}
		out = append(out, is.Number)
	}
	return out, nil
}

func hasLabel(labels []string, l string) bool {
	for _, x := range labels {
		if strings.EqualFold(x, l) {
			return true
		}
	}
	return false
}

func hasCorePull(pulls []*gh.PullRequest, issue int) bool {
	marker := status.IssueMarker(issue)
	for _, p := range pulls {
		if strings.Contains(p.Body, marker) {
			return true
		}
	}
	return false
}

// claim labels the brief and comments a claim, then reads the claims back:
// the earliest live claim wins, so two runs that raced never both work it.
func (cfg Config) claim(ctx context.Context, n int) (bool, error) {
	if err := cfg.Client.AddLabels(ctx, cfg.Owner, cfg.Repo, n, ClaimLabel); err != nil {
		return false, err
	}
	body := fmt.Sprintf("core claimed this brief (run `%s`) and is working on it.\n\n%s", cfg.RunID, claimMarker(cfg.RunID))
	id, _, err := cfg.Client.CreateComment(ctx, cfg.Owner, cfg.Repo, n, body)
	if err != nil {
		return false, err
	}
	comments, err := cfg.Client.ListComments(ctx, cfg.Owner, cfg.Repo, n)
	if err != nil {
		return false, err
	}
	for _, c := range comments { // in creation order
		if strings.Contains(c.Body, claimPrefix) {
			if c.ID == id {
				return true, nil
			}
			// Someone else's live claim came first: step back.
			released := strings.Replace(body, claimPrefix, "<!-- core:claim-lost:", 1)
			return false, cfg.Client.EditComment(ctx, cfg.Owner, cfg.Repo, id, released)
		}
	}
	return false, fmt.Errorf("brief #%d: the claim comment %d is not listed", n, id)
}

// release says why the run failed and gives the brief back.
func (cfg Config) release(ctx context.Context, n int, why string) error {
	comments, err := cfg.Client.ListComments(ctx, cfg.Owner, cfg.Repo, n)
	if err != nil {
		return err
	}
	for _, c := range comments {
		if strings.Contains(c.Body, claimMarker(cfg.RunID)) {
			body := fmt.Sprintf("core gave this brief back (run `%s`): %s\n\n<!-- core:claim-released:%s -->", cfg.RunID, why, cfg.RunID)
			if err := cfg.Client.EditComment(ctx, cfg.Owner, cfg.Repo, c.ID, body); err != nil {
				return err
			}
		}
	}
	return cfg.Client.RemoveLabel(ctx, cfg.Owner, cfg.Repo, n, ClaimLabel)
}
