package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/go-github/v62/github"
	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/status"
)

// IssueComment handles comments on issues and pull requests: /core fix,
// /core review, /core stop and /core help. Only new comments count: an edited one does
// nothing but a notice to its author (edited), a deleted one nothing.
type IssueComment struct {
	*Base
}

var _ githubapp.EventHandler = (*IssueComment)(nil)

// Handles lists the events this handler takes.
func (h *IssueComment) Handles() []string { return []string{"issue_comment"} }

// Handle handles one issue_comment delivery.
func (h *IssueComment) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	if !mentionsCore(payload) {
		return nil // most comments: no need to decode them
	}
	var ev github.IssueCommentEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return fmt.Errorf("parse issue_comment event: %w", err)
	}
	switch ev.GetAction() {
	case "created":
	case "edited":
		return h.edited(ctx, deliveryID, &ev)
	default:
		return nil
	}
	cmds := gh.ParseCommands(ev.GetComment().GetBody())
	if len(cmds) == 0 {
		return nil
	}
	user := ev.GetComment().GetUser()
	if gh.IsBot(user.GetLogin(), user.GetType()) {
		return nil // bots are ignored, this App included
	}
	req, ok, err := h.newRequest(ctx, deliveryID, &ev, ev.GetRepo(), ev.GetIssue().GetNumber(), ev.GetIssue().IsPullRequest(), user)
	if !ok {
		return err
	}
	req.commentID = ev.GetComment().GetID()
	cmd := cmds[0] // one command a comment: the first
	for _, c := range commands() {
		if c.name() == cmd.Name {
			req.instruction = cmd.Args
			return c.run(ctx, h.Base, req)
		}
	}
	if handled, err := h.handOff(ctx, req, cmd); handled || err != nil {
		return err
	}
	_, _, err = req.client.CreateComment(ctx, req.owner, req.repo, req.number, fmt.Sprintf("core: unknown command `/core %s`.\n\n%s", cmd.Name, helpText()))
	return err
}

// command is one slash command (one a file: fix.go, stop.go, help.go).
type command interface {
	name() string
	run(ctx context.Context, b *Base, req *request) error
}

func commands() []command {
	return []command{fixCommand{}, reviewCommand{}, stopCommand{}, helpCommand{}}
}

// mentionsCore reports whether a payload holds "/core" in any case: a
// comment without it holds no command.
func mentionsCore(payload []byte) bool {
	const word = "/core"
	for i := 0; i+len(word) <= len(payload); i++ {
		if payload[i] != '/' {
			continue
		}
		if bytes.EqualFold(payload[i:i+len(word)], []byte(word)) {
			return true
		}
	}
	return false
}

// logKeyComment is the log key of a comment's id.
const logKeyComment = "comment"

// edited answers an edited comment with a /core command on an issue or pull
// request whose run this process carries: it is not read (anyone with write
// access may edit anyone's comment, so what it says now may not be its
// author's), and its author is told so, once a comment. A run on Actions
// reads its comments itself, and tells them there.
func (h *IssueComment) edited(ctx context.Context, deliveryID string, ev *github.IssueCommentEvent) error {
	c := ev.GetComment()
	author := c.GetUser()
	if len(gh.ParseCommands(c.GetBody())) == 0 || gh.IsBot(author.GetLogin(), author.GetType()) {
		return nil
	}
	if _, ok := h.Runner.(messenger); !ok {
		return nil
	}
	req, ok, err := h.newRequest(ctx, deliveryID, ev, ev.GetRepo(), ev.GetIssue().GetNumber(), ev.GetIssue().IsPullRequest(), ev.GetSender())
	if !ok {
		return err
	}
	run, err := h.Store.ActiveRun(ctx, req.fullName(), req.number)
	if err != nil || run == nil {
		return err
	}
	later, err := req.client.ListCommentsSince(ctx, req.owner, req.repo, req.number, c.GetCreatedAt().Time)
	if err != nil {
		return fmt.Errorf("look for the notice about edited comment %d: %w", c.GetID(), err)
	}
	for _, o := range later {
		if status.HasEditedNotice(o.Body, c.GetID()) {
			return nil
		}
	}
	zerolog.Ctx(ctx).Info().Str(logKeyActor, ev.GetSender().GetLogin()).Str(logKeyRun, run.ID).Int64(logKeyComment, c.GetID()).Msg("Ignored an edited comment")
	_, _, err = req.client.CreateComment(ctx, req.owner, req.repo, req.number, status.EditedNotice(author.GetLogin(), c.GetID(), run.Actor))
	return err
}
