package console

import (
	"net/http"
	"slices"
	"strings"
)

// runs lists the reported runs f matches and the bot's own, newest first;
// a bot run that also sent a report shows once, as the report.
func (c *Console) runs(r *http.Request, f RunFilter) ([]*Run, error) {
	f.Limit = limitOr(f.Limit, 100)
	runs, err := c.cfg.Store.ListRuns(r.Context(), f)
	if err != nil {
		return nil, err
	}
	if c.cfg.BotRuns == nil {
		return runs, nil
	}
	bot, err := c.cfg.BotRuns.RecentRuns(r.Context(), f.Limit)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(runs))
	for _, run := range runs {
		seen[run.SessionID] = true
	}
	for _, run := range bot {
		if !seen[run.SessionID] && matches(run, f) {
			runs = append(runs, run)
		}
	}
	slices.SortStableFunc(runs, func(a, b *Run) int { return b.StartedAt.Compare(a.StartedAt) })
	return runs[:min(len(runs), f.Limit)], nil
}

func matches(run *Run, f RunFilter) bool {
	eq := func(want, got string) bool { return want == "" || strings.EqualFold(want, got) }
	return eq(f.Repo, run.Repo) && eq(f.Status, run.Status) && eq(f.Actor, run.Actor)
}

// findRun finds a reported run, or else one of the bot's.
func (c *Console) findRun(r *http.Request, id string) (*Run, error) {
	run, err := c.cfg.Store.GetRun(r.Context(), id)
	if err == nil || c.cfg.BotRuns == nil {
		return run, err
	}
	bot, berr := c.cfg.BotRuns.RecentRuns(r.Context(), 1000)
	if berr != nil {
		return nil, berr
	}
	if i := slices.IndexFunc(bot, func(b *Run) bool { return b.SessionID == id }); i >= 0 {
		return bot[i], nil
	}
	return nil, err
}
