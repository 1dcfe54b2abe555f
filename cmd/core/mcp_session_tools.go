package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/setup"
)

// The bounds of follow_session: how long one call waits for new events,
// and how many it returns.
const (
	followWait     = 20 * time.Second
	followWaitMax  = 60 * time.Second
	followMax      = 200
	followMaxLimit = 1000
	followMaxBytes = 1 << 20
)

// idIn names a session.
type idIn struct {
	ID string `json:"id" jsonschema:"the session's id, as start_session or list_sessions gives it"`
}

// sendIn is send_message's arguments.
type sendIn struct {
	ID   string `json:"id" jsonschema:"the session's id"`
	Text string `json:"text" jsonschema:"the message, as core session send takes it"`
}

// followIn is follow_session's arguments.
type followIn struct {
	ID          string `json:"id" jsonschema:"the session's id"`
	After       int    `json:"after,omitempty" jsonschema:"the cursor: how many events were read already (the next of the last call; 0 from the start)"`
	WaitSeconds int    `json:"wait_seconds,omitempty" jsonschema:"how long to wait for a new event while the run lives and has none (0: 20s; at most 60)"`
	Max         int    `json:"max,omitempty" jsonschema:"the most events to return (0: 200; at most 1000)"`
}

// followOut is what follow_session returns: the events after the
// cursor, the next cursor, and whether the run has ended with every
// event read.
type followOut struct {
	ID     string       `json:"id"`
	Events []live.Event `json:"events"`
	Next   int          `json:"next"`
	Status string       `json:"status"`
	Ended  bool         `json:"ended"`
}

// session opens the store and reads session id's record, refusing one
// whose repository is not allowed.
func (t *mcpTools) session(id string) (*session.Store, *session.Record, error) {
	store, err := t.e.sessionStore(id)
	if err != nil {
		return nil, nil, err
	}
	rec, err := store.Load(id)
	if err != nil {
		return nil, nil, err
	}
	if !repoAllowed(t.m.allow, rec.Repo) {
		return nil, nil, t.m.refusedRepo(rec.Repo)
	}
	return store, rec, nil
}

// list lists the sessions on the allowed repositories as core session
// list --json does.
func (t *mcpTools) list(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
	store, _, ok, err := t.e.lookStore()
	if err != nil {
		return nil, nil, err
	}
	recs := []*session.Record{}
	if ok {
		all, err := store.List()
		if err != nil {
			return nil, nil, err
		}
		for _, r := range all {
			if repoAllowed(t.m.allow, r.Repo) {
				recs = append(recs, r)
			}
		}
	}
	return nil, map[string]any{"sessions": listEntries(store, recs)}, nil
}

// follow returns the events after the cursor, waiting up to the bound
// for one while the run lives. A call that carries a progress token
// streams: each event is also sent as a progress notification as it is
// written, and the call returns at the bound, at the run's end, or with
// max events.
func (t *mcpTools) follow(ctx context.Context, req *mcp.CallToolRequest, in followIn) (*mcp.CallToolResult, any, error) {
	if in.After < 0 || in.WaitSeconds < 0 || in.Max < 0 {
		return nil, nil, errors.New("after, wait_seconds and max must not be negative")
	}
	wait := followWait
	if in.WaitSeconds > 0 {
		wait = min(time.Duration(in.WaitSeconds)*time.Second, followWaitMax)
	}
	limit := followMax
	if in.Max > 0 {
		limit = min(in.Max, followMaxLimit)
	}
	store, _, err := t.session(in.ID)
	if err != nil {
		return nil, nil, err
	}
	var token any
	if req != nil && req.Params != nil {
		token = req.Params.GetProgressToken()
	}
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(live.WatchEvery)
	defer tick.Stop()
	out := followOut{ID: in.ID, Events: []live.Event{}, Next: in.After}
	for {
		rec, err := store.Load(in.ID)
		if err != nil {
			return nil, nil, err
		}
		lives := rec.Status.Live()
		events, next, more, err := readEvents(filepath.Join(store.Dir(in.ID), live.EventsFile), out.Next, limit-len(out.Events))
		if err != nil {
			return nil, nil, err
		}
		if token != nil {
			progress(ctx, req, token, out.Next, events)
		}
		out.Events, out.Next, out.Status, out.Ended = append(out.Events, events...), next, string(rec.Status), !lives && !more
		if !lives || more || len(out.Events) >= limit || (token == nil && len(out.Events) > 0) {
			return nil, out, nil
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-deadline.C:
			return nil, out, nil
		case <-tick.C:
		}
	}
}

// progress sends each of events, read after the cursor after, as a
// progress notification of the call req: its progress is the event's
// cursor, its message the line core session watch prints. A notification
// that cannot be sent is dropped: the call's result has every event.
func progress(ctx context.Context, req *mcp.CallToolRequest, token any, after int, events []live.Event) {
	for i, e := range events {
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(after + i + 1), Message: e.String()})
	}
}

// readEvents reads the events of the log at path after the first after
// lines, at most limit of them (and about followMaxBytes), and says the
// next cursor and whether complete lines are left. A last line not yet
// ended (being written) is not read; no log yet is no event, and a
// cursor past the end stays where it is.
func readEvents(path string, after, limit int) (events []live.Event, next int, more bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, after, false, nil
	}
	if err != nil {
		return nil, after, false, fmt.Errorf("read the event log: %w", err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	size := 0
	for line := 0; ; line++ {
		b, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return events, max(line, after), false, nil // b, if any, is a line being written
		}
		if err != nil {
			return nil, after, false, fmt.Errorf("read the event log: %w", err)
		}
		if line < after {
			continue
		}
		if len(events) >= limit || size+len(b) > followMaxBytes && len(events) > 0 {
			return events, line, true, nil
		}
		var ev live.Event
		if err := json.Unmarshal(bytes.TrimSpace(b), &ev); err != nil {
			return nil, after, false, fmt.Errorf("the event log's line %d is damaged: %w", line+1, err)
		}
		events, size = append(events, ev), size+len(b)
	}
}

// control sends op to session id's live run through its socket, as
// core session send, interrupt and stop do.
func (t *mcpTools) control(ctx context.Context, id, op, text string) (*mcp.CallToolResult, any, error) {
	store, _, err := t.session(id)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, controlWait)
	defer cancel()
	reply, err := store.Control(ctx, id, op, text)
	if err != nil {
		return nil, nil, err
	}
	return nil, map[string]string{"id": id, "reply": reply}, nil
}

func (t *mcpTools) send(ctx context.Context, _ *mcp.CallToolRequest, in sendIn) (*mcp.CallToolResult, any, error) {
	return t.control(ctx, in.ID, live.OpSend, in.Text)
}

func (t *mcpTools) interrupt(ctx context.Context, _ *mcp.CallToolRequest, in idIn) (*mcp.CallToolResult, any, error) {
	return t.control(ctx, in.ID, live.OpInterrupt, "")
}

func (t *mcpTools) stop(ctx context.Context, _ *mcp.CallToolRequest, in idIn) (*mcp.CallToolResult, any, error) {
	return t.control(ctx, in.ID, live.OpStop, "")
}

// land lands a finished session's work as core session land does, only
// under --allow-land.
func (t *mcpTools) land(ctx context.Context, _ *mcp.CallToolRequest, in idIn) (*mcp.CallToolResult, any, error) {
	if !t.m.allowLand {
		return nil, nil, errors.New("landing is not allowed: core mcp runs without --allow-land, so nothing is pushed (start it with --allow-land to land)")
	}
	store, rec, err := t.session(in.ID)
	if err != nil {
		return nil, nil, err
	}
	o := session.Options{
		Live:     session.Live{Progress: io.Discard},
		Services: session.Services{Store: store, GitEnv: session.GitEnv(t.e.getenv), Output: io.Discard},
	}
	if err := t.e.github(&o, rec.Repo); err != nil {
		return nil, nil, err
	}
	rep, err := session.Land(ctx, rec.ID, o)
	t.e.report(ctx, "", rep, rec.Repo)
	if err != nil {
		return nil, nil, setup.Word(err, setup.FlagWording)
	}
	return nil, map[string]any{"id": rep.ID, "status": rep.Status, "pr_url": rep.PRURL, "summary": rep.Summary, "error": rep.Error}, nil
}

// report returns session id's report.json as written.
func (t *mcpTools) report(_ context.Context, _ *mcp.CallToolRequest, in idIn) (*mcp.CallToolResult, any, error) {
	store, _, err := t.session(in.ID)
	if err != nil {
		return nil, nil, err
	}
	b, err := store.ReportJSON(in.ID)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (a run writes its report when it ends)", err)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
}
