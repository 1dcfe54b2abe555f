package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/coreagent/core/gh"

	"github.com/coreagent/core/session"
)

// Delivery is where a session's report goes at its end.
type Delivery struct {
	// Console is the console's client; nil when none is configured.
	Console *Client
	Store   *session.Store
	// Out is where it says what became of the report.
	Out io.Writer
	// RepoName names, for a session on a local repository (its report's
	// repo is a path), the GitHub repository the console knows it by (its
	// origin); ok false when it has none. Nil: no local report is sent.
	RepoName func(path string) (name string, ok bool)
}

// errLocalOnly is a report the console cannot place: a local repository
// with no GitHub origin. It stays local; sending it again will not help.
var errLocalOnly = &Error{Status: 422, Message: "the session's repository is a local path with no GitHub origin (owner/name), which the console cannot place"}

// Deliver sends session id's report.json to the console. When that fails
// the report is marked pending in the session's record (core session sync
// sends it again), and it says so; it returns an error only when it could
// not even record that.
func (d *Delivery) Deliver(ctx context.Context, id string) error {
	if d.Console == nil {
		fmt.Fprintln(d.Out, "report: no console is configured (--console-url, CORE_CONSOLE_URL): the report stays local")
		return nil
	}
	err := d.send(ctx, id)
	switch {
	case err == nil:
		fmt.Fprintf(d.Out, "report: delivered to %s\n", d.Console.URL)
		return d.Store.MarkReport(ctx, id, false)
	case Refused(err):
		fmt.Fprintf(d.Out, "report: the console refused it (%v); it stays local and is not sent again\n", err)
		return d.Store.MarkReport(ctx, id, false)
	}
	fmt.Fprintf(d.Out, "report: not delivered (%v); it is pending: core session sync sends it\n", err)
	return d.Store.MarkReport(ctx, id, true)
}

func (d *Delivery) send(ctx context.Context, id string) error {
	if d.Console.Token == "" {
		return fmt.Errorf("no GitHub credential to send it with: run core auth login")
	}
	raw, err := d.Store.ReportJSON(id)
	if err != nil {
		return err
	}
	if raw, err = d.placed(raw); err != nil {
		return err
	}
	_, err = d.Console.PostReport(ctx, raw)
	return err
}

// placed returns the report as the console can file it: a local
// repository's path is replaced by the GitHub repository its origin names
// (the path itself never leaves the machine), or errLocalOnly.
func (d *Delivery) placed(raw []byte) ([]byte, error) {
	var rep map[string]any
	if err := json.Unmarshal(raw, &rep); err != nil {
		return nil, fmt.Errorf("read the report: %w", err)
	}
	repo, _ := rep["repo"].(string)
	if gh.IsRepoName(repo) {
		return raw, nil
	}
	if d.RepoName == nil {
		return nil, errLocalOnly
	}
	name, ok := d.RepoName(repo)
	if !ok {
		return nil, errLocalOnly
	}
	rep["repo"] = name
	return json.Marshal(rep)
}

// SyncResult is what Sync did.
type SyncResult struct {
	Sent, Pending, Refused []string
}

// Sync sends every pending report again, oldest first, and says what it
// sent and what is still pending. token gives each session's bearer (its
// repository's credential).
func (d *Delivery) Sync(ctx context.Context, token func(rec *session.Record) string) (SyncResult, error) {
	var res SyncResult
	recs, err := d.Store.List()
	if err != nil {
		return res, err
	}
	for i := len(recs) - 1; i >= 0; i-- {
		rec := recs[i]
		if !rec.ReportPending {
			continue
		}
		c := *d.Console
		c.Token = token(rec)
		one := Delivery{Console: &c, Store: d.Store, RepoName: d.RepoName}
		err := one.send(ctx, rec.ID)
		switch {
		case err == nil:
			res.Sent = append(res.Sent, rec.ID)
			fmt.Fprintf(d.Out, "sent %s (%s)\n", rec.ID, rec.Repo)
			if err := d.Store.MarkReport(ctx, rec.ID, false); err != nil {
				return res, err
			}
		case Refused(err):
			res.Refused = append(res.Refused, rec.ID)
			fmt.Fprintf(d.Out, "refused %s (%s): %v; no longer pending\n", rec.ID, rec.Repo, err)
			if err := d.Store.MarkReport(ctx, rec.ID, false); err != nil {
				return res, err
			}
		default:
			res.Pending = append(res.Pending, rec.ID)
			fmt.Fprintf(d.Out, "still pending %s (%s): %v\n", rec.ID, rec.Repo, err)
		}
	}
	fmt.Fprintf(d.Out, "%d sent, %d still pending\n", len(res.Sent), len(res.Pending))
	return res, nil
}
