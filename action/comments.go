package action

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/status"
)

// commentReader is what the listener needs of GitHub.
type commentReader interface {
	ListCommentsSince(ctx context.Context, owner, name string, number int, since time.Time) ([]gh.Comment, error)
	CreateComment(ctx context.Context, owner, name string, number int, body string) (int64, string, error)
	AddReaction(ctx context.Context, owner, name string, commentID int64, content string) error
	Permission(ctx context.Context, owner, name, login string) (string, error)
}

// actionLog is where the listener says what it did, for the job's log.
type actionLog interface {
	Noticef(format string, args ...any)
	Warningf(format string, args ...any)
}

// listener reads the new comments on the run's issue or pull request, one
// request each time the run asks (before each turn, and now and then while
// it is idle), and hands the /core commands in them to the run: /core
// interrupt, /core stop, and any other /core TEXT as a message. Only the
// person who started the run may message or interrupt it; stop is also
// allowed to repository admins. Anyone else gets a reply that says why,
// and the refusal goes to the log. Only comments written after the run
// started and never edited are read (gh.Comment.MessageAfter): anyone with
// write access may edit anyone's comment, so an edited one with a command
// gets a notice to its author instead, once.
type listener struct {
	client      commentReader
	log         actionLog
	owner, repo string
	number      int
	starter     gh.Account
	ctl         *live.Control
	// since is where the next read starts (GitHub's since: updated at or
	// after); seen the comments already handled, the one that started
	// the run among them.
	since time.Time
	seen  map[int64]bool
	// started is when the run started (the first since); noticed the
	// edited comments that have core's notice.
	started time.Time
	noticed map[int64]bool
}

func newListener(client commentReader, log actionLog, owner, repo string, number int, starter gh.Account, trigger int64, since time.Time, ctl *live.Control) *listener {
	return &listener{client: client, log: log, owner: owner, repo: repo, number: number, starter: starter, ctl: ctl,
		since: since, seen: map[int64]bool{trigger: true}, started: since, noticed: map[int64]bool{}}
}

// poll reads the comments since the last read and acts on them. A failed
// read is logged: the run goes on, and the next poll reads again.
func (l *listener) poll(ctx context.Context) {
	cs, err := l.client.ListCommentsSince(ctx, l.owner, l.repo, l.number, l.since)
	if err != nil {
		if ctx.Err() == nil {
			l.log.Warningf("core: could not read new comments on #%d: %v", l.number, err)
		}
		return
	}
	for _, c := range cs {
		if c.UpdatedAt.After(l.since) {
			l.since = c.UpdatedAt
		}
		if l.seen[c.ID] {
			continue
		}
		l.seen[c.ID] = true
		if gh.IsBot(c.Author, "") || strings.Contains(c.Body, strings.TrimSuffix(status.Marker(""), " -->")) {
			continue // core's own comments, and other bots, are not people
		}
		cmds := gh.ParseCommands(c.Body)
		if !c.MessageAfter(l.started) {
			if c.Edited() && len(cmds) > 0 {
				l.noticeEdited(ctx, c)
			}
			continue
		}
		for _, cmd := range cmds {
			l.handle(ctx, c, cmd)
		}
	}
}

// noticeEdited tells the author of edited comment c, once, that it was not
// read as a message: not when this run or an earlier one left the notice
// (read back from the comments since c was written).
func (l *listener) noticeEdited(ctx context.Context, c gh.Comment) {
	if l.noticed[c.ID] {
		return
	}
	l.noticed[c.ID] = true
	l.log.Warningf("core: ignored comment %d of @%s on #%d: it was edited after it was posted", c.ID, c.Author, l.number)
	later, err := l.client.ListCommentsSince(ctx, l.owner, l.repo, l.number, c.CreatedAt)
	if err != nil {
		l.log.Warningf("core: could not read the comments after %d: %v", c.ID, err)
		return
	}
	for _, o := range later {
		if status.HasEditedNotice(o.Body, c.ID) {
			return
		}
	}
	if _, _, err := l.client.CreateComment(context.WithoutCancel(ctx), l.owner, l.repo, l.number, status.EditedNotice(c.Author, c.ID, l.starter.Login)); err != nil {
		l.log.Warningf("core: could not reply: %v", err)
	}
}

// handle acts on one command of comment c. Its replies and reactions
// outlive the run's context, which a stop ends.
func (l *listener) handle(ctx context.Context, c gh.Comment, cmd gh.Command) {
	ctx = context.WithoutCancel(ctx)
	from := "@" + c.Author
	var reply string
	var err error
	switch cmd.Name {
	case "help", "fix":
		// Not a message: /core fix asks for a run (the one that started
		// this, or another the bot answers), /core help the bot's help.
		return
	case "stop":
		if reason := l.mayStop(ctx, c); reason != "" {
			l.refuse(ctx, c, "a stop", reason)
			return
		}
		reply, err = l.ctl.Stop(from)
	case "interrupt":
		if !gh.MayAct("", l.isStarter(c), gh.ActInterrupt) {
			l.refuse(ctx, c, "an interrupt", fmt.Sprintf("@%s, only @%s, who started this run, may message or interrupt it.", c.Author, l.starter.Login))
			return
		}
		reply, err = l.ctl.Interrupt(from)
	default:
		if !gh.MayAct("", l.isStarter(c), gh.ActMessage) {
			l.refuse(ctx, c, "a message", fmt.Sprintf("@%s, only @%s, who started this run, may message or interrupt it.", c.Author, l.starter.Login))
			return
		}
		text := strings.TrimSpace(cmd.Name + " " + cmd.Args)
		reply, err = l.ctl.Send(live.Message{From: from, Text: text})
	}
	if err != nil {
		l.log.Warningf("core: /core %s from %s not taken: %v", cmd.Name, from, err)
		if _, _, cerr := l.client.CreateComment(ctx, l.owner, l.repo, l.number, fmt.Sprintf("core: %s, %v.", from, err)); cerr != nil {
			l.log.Warningf("core: could not reply: %v", cerr)
		}
		return
	}
	l.log.Noticef("core: /core %s from %s: %s", cmd.Name, from, reply)
	if rerr := l.client.AddReaction(ctx, l.owner, l.repo, c.ID, "+1"); rerr != nil {
		l.log.Warningf("core: could not acknowledge the comment: %v", rerr)
	}
}

// isStarter reports whether comment c's author started the run: by GitHub
// id when both are known (a login can be renamed, and the freed login taken
// by another account), else by login (gh.SameAccount).
func (l *listener) isStarter(c gh.Comment) bool {
	return gh.SameAccount(gh.Account{Login: c.Author, ID: c.AuthorID}, l.starter)
}

// mayStop says why comment c's author may not stop the run, or ""
// (gh.MayAct).
func (l *listener) mayStop(ctx context.Context, c gh.Comment) string {
	login := c.Author
	starter, perm := l.isStarter(c), "none"
	if gh.PermissionDecides(starter, gh.ActStop) {
		if p, err := l.client.Permission(ctx, l.owner, l.repo, login); err == nil {
			perm = p
		}
	}
	if gh.MayAct(perm, starter, gh.ActStop) {
		return ""
	}
	return fmt.Sprintf("@%s, only @%s, who started this run, or a repository admin can stop it.", login, l.starter.Login)
}

// refuse answers a command the person may not give, and logs it.
func (l *listener) refuse(ctx context.Context, c gh.Comment, what, reason string) {
	l.log.Warningf("core: refused %s from @%s on #%d: %s", what, c.Author, l.number, reason)
	if _, _, err := l.client.CreateComment(ctx, l.owner, l.repo, l.number, "core: "+reason); err != nil {
		l.log.Warningf("core: could not reply: %v", err)
	}
}
