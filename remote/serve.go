package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/coreagent/core/internal/pause"
)

// Serve runs the instructions queued for the token's user, one at a
// time, on the listed repositories only.
type Serve struct {
	Console *Client
	// Repos are the repositories (owner/name) it runs instructions for;
	// any other is refused.
	Repos []string
	// Once stops after one instruction.
	Once bool
	// PollWait is how long each long-poll waits for an instruction.
	PollWait time.Duration
	// Run runs one instruction as a session and says what it came to
	// (Claim is filled in here). ctx ends on SIGTERM: Run then returns
	// Released.
	Run   func(ctx context.Context, c *Command) Result
	Audit *Audit
	Out   io.Writer
	// Wait waits d or until ctx ends (default: a timer); the back-off.
	Wait func(ctx context.Context, d time.Duration) error
	// OnRenew, when set, hears each renewal of a running instruction's
	// lease.
	OnRenew func(c *Command)
}

// Back-off while the console is unreachable.
const (
	firstBackoff = time.Second
	maxBackoff   = time.Minute
)

// Loop polls, runs and reports until ctx ends (or, with Once, after one
// instruction). A refused token ends it; an unreachable console is waited
// out, with a growing back-off.
func (s *Serve) Loop(ctx context.Context) error {
	backoff := time.Duration(0)
	s.audit(AuditEntry{Event: "start", Detail: "serving " + strings.Join(s.Repos, ", ")})
	for {
		if ctx.Err() != nil {
			s.audit(AuditEntry{Event: "stop", Detail: "stopped"})
			return nil
		}
		cmd, err := s.Console.Claim(ctx, s.PollWait)
		var ce *Error
		switch {
		case ctx.Err() != nil:
			continue
		case errors.As(err, &ce) && (ce.Status == http.StatusUnauthorized || ce.Status == http.StatusForbidden):
			s.audit(AuditEntry{Event: "refused-token", Detail: ce.Message})
			return fmt.Errorf("the console refused this machine's token (%s): run core auth login", ce.Message)
		case err != nil:
			backoff = min(max(2*backoff, firstBackoff), maxBackoff)
			fmt.Fprintf(s.Out, "serve: the console is unreachable (%v); trying again in %s\n", err, backoff)
			_ = s.wait(ctx, backoff) // a cancelled wait ends the loop above
			continue
		case cmd == nil:
			backoff = 0
			continue
		}
		if backoff > 0 {
			fmt.Fprintln(s.Out, "serve: the console is back")
			backoff = 0
		}
		s.handle(ctx, cmd)
		if s.Once {
			s.audit(AuditEntry{Event: "stop", Detail: "--once: one instruction done"})
			return nil
		}
	}
}

func (s *Serve) handle(ctx context.Context, cmd *Command) {
	s.audit(AuditEntry{Event: "claim", Command: cmd.ID, Repo: cmd.Repo, Detail: fmt.Sprintf("attempt %d", cmd.Attempts)})
	fmt.Fprintf(s.Out, "serve: instruction %d on %s: %s\n", cmd.ID, cmd.Repo, firstLine(cmd.Instruction))
	var res Result
	if !slices.ContainsFunc(s.Repos, func(r string) bool { return strings.EqualFold(r, cmd.Repo) }) {
		res = Result{Status: Declined, Error: fmt.Sprintf("%s is not a repository this machine serves (--repo %s)", cmd.Repo, strings.Join(s.Repos, ", --repo "))}
		fmt.Fprintf(s.Out, "serve: refused instruction %d: %s\n", cmd.ID, res.Error)
	} else {
		stop := s.keepLease(ctx, cmd)
		res = s.Run(ctx, cmd)
		stop()
	}
	res.Claim = cmd.Claim
	s.audit(AuditEntry{Event: "result", Command: cmd.ID, Repo: cmd.Repo, Session: res.SessionID, Detail: strings.TrimSpace(res.Status + " " + res.Error)})
	res.Audit = s.head()
	// The result is posted even after SIGTERM: that is what releases the
	// claim.
	if err := s.Console.Finish(context.WithoutCancel(ctx), cmd.ID, res); err != nil {
		fmt.Fprintf(s.Out, "serve: %v (the claim lapses when its lease runs out)\n", err)
		s.audit(AuditEntry{Event: "result-undelivered", Command: cmd.ID, Detail: err.Error()})
		return
	}
	if res.SessionID == "" && res.Error != "" && res.Status != Declined {
		// No session ran to print why: say it here.
		fmt.Fprintf(s.Out, "serve: instruction %d: %s: %s\n", cmd.ID, res.Status, res.Error)
		return
	}
	fmt.Fprintf(s.Out, "serve: instruction %d: %s\n", cmd.ID, res.Status)
}

func (s *Serve) audit(e AuditEntry) {
	if s.Audit == nil {
		return
	}
	if err := s.Audit.Append(e); err != nil {
		fmt.Fprintf(s.Out, "serve: %v\n", err)
	}
}

// head is the audit trail's position, which the result carries to the
// console: a copy of it kept off this machine, which a rewritten trail
// no longer matches (--verify-audit compares). nil without a trail.
func (s *Serve) head() *AnchorPoint {
	if s.Audit == nil {
		return nil
	}
	p, err := s.Audit.Head()
	if err != nil {
		fmt.Fprintf(s.Out, "serve: %v (the result goes without an anchor)\n", err)
		return nil
	}
	return &p
}

func (s *Serve) wait(ctx context.Context, d time.Duration) error {
	if s.Wait != nil {
		return s.Wait(ctx, d)
	}
	return pause.For(ctx, d)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
