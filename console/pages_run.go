package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// GET /runs
func (c *Console) runsPage(w http.ResponseWriter, r *http.Request) {
	p := c.signedIn(w, r, "Runs")
	if p == nil {
		return
	}
	q := r.URL.Query()
	p.Filter = RunFilter{Repo: q.Get("repo"), Status: q.Get("status"), Actor: q.Get("who")}
	runs, err := c.runs(r, p.Filter)
	if err != nil {
		c.failPage(w, r, p, "runs", "The runs could not be read just now; reload the page in a moment.", err)
		return
	}
	for _, run := range runs {
		p.Runs = append(p.Runs, runRow{Run: run, Links: c.links(run, detailOf(run), true)})
	}
	if ds, ok := c.cfg.BotRuns.(daySpender); ok {
		spend, err := ds.SpentToday(r.Context())
		if err != nil {
			c.failPage(w, r, p, "runs", "The day's spend could not be read just now; reload the page in a moment.", err)
			return
		}
		p.Budget = spend.Budget
		for repo, usd := range spend.ByRepo {
			p.Spend = append(p.Spend, repoSpend{Repo: repo, USD: usd})
		}
		slices.SortFunc(p.Spend, func(a, b repoSpend) int { return strings.Compare(a.Repo, b.Repo) })
	}
	c.render(w, http.StatusOK, "runs", p)
}

// GET /runs/{id}
func (c *Console) runPage(w http.ResponseWriter, r *http.Request) {
	p, run := c.pageRun(w, r)
	if run == nil {
		return
	}
	d := detailOf(run)
	p.Run = &runDetail{Run: run, Summary: d.Summary, Links: c.links(run, d, false), Diff: diffView(d), Review: reviewOf(d), EndedAt: d.EndedAt}
	p.Title = "Run " + run.SessionID
	if len(run.Report) > 2 {
		var pretty bytes.Buffer
		if json.Indent(&pretty, run.Report, "", "  ") == nil {
			p.Report = pretty.String()
		}
		p.Contract = contractOf(run.Report)
	}
	if err := c.livePage(r, p, run); err != nil {
		c.failPage(w, r, p, "error", "The run's events could not be read just now; reload the page in a moment.", err)
		return
	}
	var ended map[int]time.Time
	if p.Live != nil {
		ended = turnEnds(p.Live.Events)
		p.ConfirmStop = p.Live.Live && r.URL.Query().Get("confirm") == "stop"
	}
	p.Run.Steps = timeline(d, ended)
	c.render(w, http.StatusOK, "run", p)
}

// GET /runs/{id}/report.json: the report as the session sent it.
func (c *Console) runReport(w http.ResponseWriter, r *http.Request) {
	p, run := c.pageRun(w, r)
	if run == nil {
		return
	}
	if len(run.Report) <= 2 {
		p.Title, p.Error = "No report", fmt.Sprintf("Run %s sent no report: the bot ran it, and only the bot's record of it is here.", run.SessionID)
		c.render(w, http.StatusNotFound, "error", p)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(run.Report)
}

// pageRun is, for a signed-in browser, its page and the run the path
// names; with a nil run it has answered (the sign-in page, or an error).
func (c *Console) pageRun(w http.ResponseWriter, r *http.Request) (*page, *Run) {
	p := c.signedIn(w, r, "Run")
	if p == nil {
		return nil, nil
	}
	id := r.PathValue("id")
	run, err := c.findRun(r, id)
	switch {
	case errors.Is(err, ErrNotFound) || err == nil && run == nil:
		p.Title, p.Error = "Not found", fmt.Sprintf("There is no run %q here. It may not have reported yet, or it was reported to another console.", id)
		c.render(w, http.StatusNotFound, "error", p)
		return p, nil
	case err != nil:
		c.failPage(w, r, p, "error", "The run could not be read just now; reload the page in a moment.", err)
		return p, nil
	}
	return p, run
}

// turnEnds is when each turn ended, by its turn event: the run writes
// it once the turn's tool has run (session's step).
func turnEnds(events []*RunEvent) map[int]time.Time {
	out := map[int]time.Time{}
	for _, e := range events {
		if e.Kind != "turn" {
			continue
		}
		var t struct {
			Time time.Time `json:"time"`
			Turn int       `json:"turn"`
		}
		if json.Unmarshal(e.Event, &t) == nil && !t.Time.IsZero() {
			out[t.Turn] = t.Time
		}
	}
	return out
}
