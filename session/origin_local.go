package session

import (
	"context"
	"time"

	"github.com/coreagent/core/session/land"
)

// localRepo is the origin of a session on a repository on this machine: a
// land.Local, handed what it needs of the session as githubRepo is.
type localRepo struct {
	*land.Local
}

func openLocalRepo(ctx context.Context, g gitRunner, path string) (localRepo, error) {
	r, err := land.OpenLocal(ctx, g.landGit(), path)
	if err != nil {
		return localRepo{}, fromLand(err)
	}
	return localRepo{Local: r}, nil
}

func (r localRepo) name() string { return r.Name() }

func (r localRepo) target(ctx context.Context, opts Options, id string) (land.Target, error) {
	t, err := r.Target(ctx, landGoal(opts), id)
	return t, fromLand(err)
}

func (r localRepo) issue(ctx context.Context, number int, before time.Time) (string, error) {
	text, err := r.Issue(ctx, number, before)
	return text, fromLand(err)
}

func (r localRepo) clone(ctx context.Context, dest string, t land.Target) error {
	return fromLand(r.Clone(ctx, dest, t))
}

// land hands the run's work to land.Local.Land and records the commit it
// made and what it left out.
func (r localRepo) land(ctx context.Context, s *run) error {
	w := s.landWork()
	err := r.Land(ctx, w)
	s.rec.Commit, s.rec.LandOnto = w.Commit, w.LandOnto
	if w.LeftOut != "" {
		s.report.Findings = append(s.report.Findings, Finding{Kind: FindingLeftOut, Detail: w.LeftOut})
	}
	return err
}

// landGoal is what the session asks of its repository, as session/land
// takes it.
func landGoal(opts Options) land.Goal {
	return land.Goal{
		Base: opts.Goal.Base, Branch: opts.Goal.Branch, Issue: opts.Goal.Issue, PullRequest: opts.Goal.PullRequest, Pull: opts.Goal.Pull,
		Clean: opts.Goal.Clean,
	}
}
