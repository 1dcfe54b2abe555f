package console

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/coreagent/core/console/overview"
)

// overviewDays is the window the overview shows when none is asked for.
const overviewDays = 30

// overviewBotRuns bounds the bot's own runs the overview reads: the bot
// lists its newest, not a window, so this is more than 90 days hold.
const overviewBotRuns = 20000

// endingSeries is how the overview's charts show each ending: the words
// of its legend and its colour (the colour of its badge's tone).
var endingSeries = []overview.Series{
	{Key: EndingHeld, Label: "completed, contract held", Color: "#2da44e"},
	{Key: EndingCompleted, Label: "completed", Color: "#8ddb8c"},
	{Key: EndingExhausted, Label: "budget exhausted", Color: "#d4a72c"},
	{Key: EndingStopped, Label: "stopped or cancelled", Color: "#8c959f"},
	{Key: EndingPartial, Label: "partial", Color: "#fb8f44"},
	{Key: EndingLost, Label: "lost", Color: "#9a6700"},
	{Key: EndingFailed, Label: "failed", Color: "#cf222e"},
	{Key: EndingLive, Label: "not ended yet", Color: "#54aeff"},
}

// overviewView is the overview page: its window's numbers, their charts,
// the links to the other windows and the costliest runs with how each
// ended.
type overviewView struct {
	overview.Summary
	Series                              []overview.Series
	RunsChart, SpendChart, VerdictChart template.HTML
	Windows                             []windowLink
	Costly                              []costlyRun
	// BotRunsCut is the bot's runs read, when the window holds more of
	// them than that: the page then says its older ones are not counted.
	BotRunsCut int
}

type windowLink struct {
	Days    int
	URL     string
	Current bool
}

type costlyRun struct {
	overview.Run
	Ending Ending
}

// GET /overview?repo=owner/name&days=7|30|90
func (c *Console) overviewPage(w http.ResponseWriter, r *http.Request) {
	p := c.signedIn(w, r, "Overview")
	if p == nil {
		return
	}
	win, problem := c.overviewWindow(r.URL.Query())
	if problem != "" {
		p.Title, p.Error = "Not an overview", problem
		c.render(w, http.StatusBadRequest, "error", p)
		return
	}
	stored, cut, err := c.windowRuns(r, RunFilter{Repo: win.Repo, Since: win.Start(), Brief: true})
	if err != nil {
		c.failPage(w, r, p, "error", "The runs could not be read just now; reload the page in a moment.", err)
		return
	}
	runs := make([]overview.Run, 0, len(stored))
	endings := make(map[string]Ending, len(stored))
	for _, run := range stored {
		e := EndingOf(run)
		endings[run.SessionID] = e
		runs = append(runs, overview.Run{
			ID: run.SessionID, Repo: run.Repo, Started: run.StartedAt, Duration: run.Duration,
			Ending: e.Key, Verdict: run.Verdict, CostUSD: run.CostUSD, Goal: run.Goal,
		})
	}
	s := overview.Compute(runs, win)
	v := &overviewView{
		Summary: s, Series: overview.SeriesOf(s.Endings, endingSeries),
		RunsChart: overview.RunsChart(s, endingSeries), SpendChart: overview.SpendChart(s), VerdictChart: overview.VerdictChart(s),
	}
	if cut {
		v.BotRunsCut = overviewBotRuns
	}
	for _, days := range overview.Windows {
		q := url.Values{"days": {strconv.Itoa(days)}}
		if win.Repo != "" {
			q.Set("repo", win.Repo)
		}
		v.Windows = append(v.Windows, windowLink{Days: days, URL: "/overview?" + q.Encode(), Current: days == win.Days})
	}
	for _, run := range s.Costliest {
		v.Costly = append(v.Costly, costlyRun{Run: run, Ending: endings[run.ID]})
	}
	p.Overview = v
	p.Title = fmt.Sprintf("Overview of %d days", win.Days)
	c.render(w, http.StatusOK, "overview", p)
}

// windowRuns lists every run f's window holds: the reported ones, and
// the bot's own that sent no report (a reported run gets what the bot
// knows of it, as on the Runs page). cut says the bot's newest
// overviewBotRuns runs all started in the window: older ones it holds
// there were not read.
func (c *Console) windowRuns(r *http.Request, f RunFilter) (runs []*Run, cut bool, err error) {
	c.sweepLost(r.Context())
	runs, err = c.cfg.Store.ListRuns(r.Context(), f)
	if err != nil {
		return nil, false, err
	}
	reported := make(map[string]*Run, len(runs))
	for _, run := range runs {
		reported[run.SessionID] = run // read Brief: filled already
	}
	if c.cfg.BotRuns == nil {
		return runs, false, nil
	}
	bot, err := c.cfg.BotRuns.RecentRuns(r.Context(), overviewBotRuns)
	if err != nil {
		return nil, false, err
	}
	for _, run := range bot {
		if rep := reported[run.SessionID]; rep != nil {
			rep.withBot(run)
		} else if !run.StartedAt.Before(f.Since) && matches(run, f) {
			runs = append(runs, run)
		}
	}
	cut = len(bot) == overviewBotRuns && !bot[len(bot)-1].StartedAt.Before(f.Since)
	return runs, cut, nil
}

// overviewWindow reads the page's query: a repository of the console's
// organisation (or none: all of them) and one of the windows' lengths.
// A problem is what was wrong with it, for the person who asked.
func (c *Console) overviewWindow(q url.Values) (win overview.Window, problem string) {
	win = overview.Window{Days: overviewDays, Today: c.cfg.Now().UTC(), Endings: Endings, Live: EndingLive}
	if days := q.Get("days"); days != "" {
		n, err := strconv.Atoi(days)
		if err != nil || !slices.Contains(overview.Windows, n) {
			return win, fmt.Sprintf("days must be 7, 30 or 90 (the window the overview covers, in days), got %q.", days)
		}
		win.Days = n
	}
	if repo := strings.TrimSpace(q.Get("repo")); repo != "" {
		if err := validRepo(repo); err != nil {
			return win, err.Error() + ": name one of " + c.cfg.Org + "'s repositories, or none for all of them."
		}
		if !c.inOrg(repo) {
			return win, fmt.Sprintf("%s is not in %s: this console holds only %[2]s's runs. Name one of its repositories, or none for all of them.", repo, c.cfg.Org)
		}
		win.Repo = repo
	}
	return win, ""
}
