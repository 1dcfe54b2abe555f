package console

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/coreagent/core/internal/clip"
)

//go:embed templates/*.html
var templateFiles embed.FS

// pages parses the templates; New calls it once, and a parse error is a
// bug every test catches.
func pages() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"dollars": func(f float64) string { return fmt.Sprintf("$%.4f", f) },
		"duration": func(d time.Duration) string {
			if d <= 0 {
				return ""
			}
			return d.Round(time.Second).String()
		},
		"tone":      tone,
		"ending":    EndingOf,
		"clock":     timeOfDay,
		"day":       day,
		"budgetWhy": budgetWhy,
		"web":       web,
		"money":     money,
		"when":      when,
		"lostWhy":   func() string { return lostWhy },
		"short":     clip.Line,
		"rfc3339": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return t.UTC().Format(time.RFC3339)
		},
	}).ParseFS(templateFiles, "templates/*.html"))
}

// page is what every page gets.
type page struct {
	Title, Login, CSRF, Org, Error string

	Runs     []runRow
	Spend    []repoSpend // the day's spend of the bot's runs, by repository
	Budget   float64     // the daily budget per repository; 0: none
	Filter   RunFilter
	Run      *runDetail
	Report   string
	Contract *contractView
	Commands []*Command
	// RunEndings are how the runs of the queue's results ended, by
	// session id.
	RunEndings map[string]*Ending
	Audit      []*AuditEntry
	Repos      []forgerRepo
	Live       *liveView // the run page of a run that sent its events
	Overview   *overviewView
	// ConfirmStop asks, on a live run's page, whether to stop it: the
	// Stop button leads here (?confirm=stop), so it works without script.
	ConfirmStop bool
	// Nonce lets the page's one script run (the live run page's).
	Nonce string
}

// runRow is a run on the Runs page.
type runRow struct {
	*Run
	Links []link
}

// runDetail is a run on its own page.
type runDetail struct {
	*Run
	Summary string
	Links   []link
	Steps   []stepView
	Diff    string
	Review  *reviewView // a review's findings and test classification
	EndedAt time.Time   // from the report; zero while the run lives
}

// contractView is a report's contract as the run page shows it. The
// contract is the session engine's (contract.Contract: a verdict held,
// broken, unjudged or none, and each check run on the start commit and on the final
// tree); the console reads the fields it shows and tolerates its absence.
type contractView struct {
	Verdict              string
	BaselineGatesNothing bool
	Checks               []checkView
}

type checkView struct {
	Command, Source, Baseline, Result, Verdict string
}

// checkResult is one run of a check, as report.json has it.
type checkResult struct {
	Exit     int     `json:"exit"`
	Passed   bool    `json:"passed"`
	TimedOut bool    `json:"timed_out"`
	Seconds  float64 `json:"seconds"`
	Error    string  `json:"error"`
	// Cause is set when the run failed for a cause of the environment's
	// (contract.CheckResult.Cause): it judged nothing of the code.
	Cause string `json:"cause"`
}

func (r checkResult) String() string {
	switch {
	case r.Error != "":
		return "could not run: " + r.Error
	case r.TimedOut:
		return fmt.Sprintf("timed out (%.1fs)", r.Seconds)
	case r.Passed:
		return fmt.Sprintf("pass (%.1fs)", r.Seconds)
	case r.Cause != "":
		return fmt.Sprintf("could not judge, exit %d (%.1fs): the environment's, %s", r.Exit, r.Seconds, r.Cause)
	}
	return fmt.Sprintf("fail, exit %d (%.1fs)", r.Exit, r.Seconds)
}

func (c *Console) render(w http.ResponseWriter, status int, name string, p *page) {
	p.Org = c.cfg.Org
	var buf bytes.Buffer
	if err := c.templates.ExecuteTemplate(&buf, name, p); err != nil {
		c.cfg.Logger.Error().Err(err).Str(logKeyPage, name).Msg("Rendering a page failed")
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	csp := "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"
	if p.Nonce != "" {
		csp += "; script-src 'nonce-" + p.Nonce + "'; connect-src 'self'"
	}
	w.Header().Set("Content-Security-Policy", csp)
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// failPage answers a failure of the console's own (its store, GitHub) with
// page name and a plain message for people; the error itself goes to the
// log, never to the page.
func (c *Console) failPage(w http.ResponseWriter, r *http.Request, p *page, name, message string, err error) {
	c.logFailure(r, err)
	if name == "error" {
		p.Title = "Something went wrong"
	}
	p.Error = message
	c.render(w, http.StatusInternalServerError, name, p)
}

// logFailure logs what failed behind a page, for whoever runs the console.
func (c *Console) logFailure(r *http.Request, err error) {
	c.cfg.Logger.Error().Err(err).Str(logKeyPage, r.Method+" "+r.URL.Path).Msg("A page failed")
}

// refusePage answers a refusal as a page, audited, with the header of
// whoever is signed in.
func (c *Console) refusePage(w http.ResponseWriter, r *http.Request, status int, actor, reason string) {
	_ = c.audit(r.Context(), actor, "refuse", r.Method+" "+r.URL.Path, reason)
	c.cfg.Logger.Info().Str(logKeyActor, actor).Str(logKeyReason, reason).Int(logKeyStatus, status).Msg("Refused a request")
	p := &page{Title: "Refused", Error: reason}
	if ws := c.session(r); ws != nil {
		p.Login, p.CSRF = ws.Login, ws.CSRF
	}
	c.render(w, status, "error", p)
}

// signedIn returns the page for a signed-in browser, or shows the sign-in
// page and returns nil.
func (c *Console) signedIn(w http.ResponseWriter, r *http.Request, title string) *page {
	ws := c.session(r)
	if ws == nil {
		c.render(w, http.StatusUnauthorized, "signin", &page{Title: "Sign in"})
		return nil
	}
	return &page{Title: title, Login: ws.Login, CSRF: ws.CSRF}
}

// GET /
func (c *Console) home(w http.ResponseWriter, r *http.Request) {
	if c.session(r) == nil {
		c.render(w, http.StatusOK, "signin", &page{Title: "Sign in"})
		return
	}
	http.Redirect(w, r, "/runs", http.StatusFound)
}

// repoSpend is one repository's spend today.
type repoSpend struct {
	Repo string
	USD  float64
}

// contractOf reads a report's contract, nil when it has none.
func contractOf(report []byte) *contractView {
	var rep struct {
		Contract *struct {
			Verdict              string `json:"verdict"`
			BaselineGatesNothing bool   `json:"baseline_gates_nothing"`
			Checks               []struct {
				Command  []string    `json:"command"`
				Source   string      `json:"source"`
				Baseline checkResult `json:"baseline"`
				Result   checkResult `json:"result"`
				Verdict  string      `json:"verdict"`
			} `json:"checks"`
		} `json:"contract"`
	}
	if json.Unmarshal(report, &rep) != nil || rep.Contract == nil {
		return nil
	}
	v := &contractView{Verdict: rep.Contract.Verdict, BaselineGatesNothing: rep.Contract.BaselineGatesNothing}
	for _, ch := range rep.Contract.Checks {
		v.Checks = append(v.Checks, checkView{
			Command: strings.Join(ch.Command, " "), Source: ch.Source,
			Baseline: ch.Baseline.String(), Result: ch.Result.String(), Verdict: ch.Verdict,
		})
	}
	return v
}

// GET /audit
func (c *Console) auditPage(w http.ResponseWriter, r *http.Request) {
	p := c.signedIn(w, r, "Audit")
	if p == nil {
		return
	}
	log, err := c.cfg.Store.AuditLog(r.Context(), 500)
	if err != nil {
		c.failPage(w, r, p, "audit", "The audit log could not be read just now; reload the page in a moment.", err)
		return
	}
	p.Audit = log
	c.render(w, http.StatusOK, "audit", p)
}
