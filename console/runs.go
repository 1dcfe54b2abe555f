package console

import (
	"errors"
	"net/http"
	"slices"
	"strings"
)

// runs lists the reported runs f matches and the bot's own, newest first;
// a bot run that also sent a report shows once, as the report, with what
// the bot knows of it (its issue, its workflow run).
func (c *Console) runs(r *http.Request, f RunFilter) ([]*Run, error) {
	f.Limit = limitOr(f.Limit, 100)
	c.sweepLost(r.Context())
	runs, err := c.cfg.Store.ListRuns(r.Context(), f)
	if err != nil {
		return nil, err
	}
	for _, run := range runs {
		run.fill(detailOf(run))
	}
	if c.cfg.BotRuns == nil {
		return runs, nil
	}
	bot, err := c.cfg.BotRuns.RecentRuns(r.Context(), f.Limit)
	if err != nil {
		return nil, err
	}
	reported := make(map[string]*Run, len(runs))
	for _, run := range runs {
		reported[run.SessionID] = run
	}
	for _, run := range bot {
		if rep := reported[run.SessionID]; rep != nil {
			rep.withBot(run)
		} else if matches(run, f) {
			runs = append(runs, run)
		}
	}
	slices.SortStableFunc(runs, func(a, b *Run) int { return b.StartedAt.Compare(a.StartedAt) })
	return runs[:min(len(runs), f.Limit)], nil
}

// brief reads what the pages list from the run's report, then lets the
// report go: what is kept of it is what EndingOf and the lists read.
func (run *Run) brief() {
	d := detailOf(run)
	run.fill(d)
	*d = reportDetail{Landed: d.Landed, Kind: d.Kind}
	run.Report = nil
}

func matches(run *Run, f RunFilter) bool {
	eq := func(want, got string) bool { return want == "" || strings.EqualFold(want, got) }
	return eq(f.Repo, run.Repo) && eq(f.Status, run.Status) && eq(f.Actor, run.Actor)
}

// findRun finds a reported run, with what the bot knows of it, or else
// one of the bot's.
func (c *Console) findRun(r *http.Request, id string) (*Run, error) {
	c.sweepLost(r.Context())
	run, err := c.cfg.Store.GetRun(r.Context(), id)
	if run != nil {
		run.fill(detailOf(run))
	}
	if err != nil && !errors.Is(err, ErrNotFound) || c.cfg.BotRuns == nil {
		return run, err
	}
	bot, berr := c.cfg.BotRuns.RecentRuns(r.Context(), 1000)
	if berr != nil {
		if run != nil {
			return run, nil // the report alone will do
		}
		return nil, berr
	}
	i := slices.IndexFunc(bot, func(b *Run) bool { return b.SessionID == id })
	switch {
	case i < 0:
		return run, err
	case run != nil:
		run.withBot(bot[i])
		return run, nil
	}
	return bot[i], nil
}
