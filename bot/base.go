package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/status"
	"github.com/coreagent/core/telemetry"
)

// Log keys.
const (
	logKeyRepo   = "repo"
	logKeyNumber = "number"
	logKeyRun    = "run"
	logKeyActor  = "actor"
)

// Base holds what every event handler shares.
type Base struct {
	githubapp.ClientCreator
	Store    Store
	Config   *Config
	Runner   Runner
	Metrics  *Metrics
	Now      func() time.Time
	NewRunID func() string
	// Telemetry traces webhooks and dispatches; nil traces nothing.
	Telemetry *telemetry.Telemetry

	// statusMu makes each read-edit-write of a status comment whole: two
	// deliveries handled at once (the pull request opened, the workflow
	// run completed) must not lose each other's notes.
	statusMu sync.Mutex
}

// installationClient returns the GitHub client of the installation that
// sent an event.
func (b *Base) installationClient(installationID int64) (*gh.Client, error) {
	c, err := b.NewInstallationClient(installationID)
	if err != nil {
		return nil, fmt.Errorf("client for installation %d: %w", installationID, err)
	}
	return gh.Wrap(c), nil
}

// seen records a delivery and reports whether it was handled before: a
// redelivered webhook does nothing twice.
func (b *Base) seen(ctx context.Context, deliveryID string) (bool, error) {
	if deliveryID == "" {
		return false, nil
	}
	seen, err := b.Store.SeenDelivery(ctx, deliveryID)
	if err != nil {
		return false, fmt.Errorf("record delivery %s: %w", deliveryID, err)
	}
	if seen {
		zerolog.Ctx(ctx).Info().Msg("Ignoring a redelivered webhook")
	}
	return seen, nil
}

// request is one request for a run: a /core fix comment or a core:fix
// label, on an issue or a pull request.
type request struct {
	client         *gh.Client
	owner, repo    string
	number         int
	isPull         bool
	actor          *github.User
	commentID      int64
	instruction    string
	deliveryID     string
	installationID int64
	defaultBranch  string
	// kind is the run asked for when the command says (review); empty:
	// a fix on an issue, a resolve on a pull request.
	kind string
}

func (r *request) fullName() string { return r.owner + "/" + r.repo }

// newRequest records a delivery and builds the request it makes, with the
// installation's client. ok is false for a delivery handled before: a
// redelivered webhook does nothing twice.
func (b *Base) newRequest(ctx context.Context, deliveryID string, ev githubapp.InstallationSource, repo *github.Repository, number int, isPull bool, actor *github.User) (req *request, ok bool, err error) {
	if seen, err := b.seen(ctx, deliveryID); err != nil || seen {
		return nil, false, err
	}
	id := githubapp.GetInstallationIDFromEvent(ev)
	client, err := b.installationClient(id)
	if err != nil {
		return nil, false, err
	}
	return &request{
		client: client, owner: repo.GetOwner().GetLogin(), repo: repo.GetName(),
		number: number, isPull: isPull, actor: actor,
		deliveryID: deliveryID, installationID: id, defaultBranch: repo.GetDefaultBranch(),
	}, true, nil
}

// authorize checks the person who asked. It returns why it refuses, or ""
// for a person with write, maintain or admin permission. Bots (by type or
// by a [bot] suffix) are refused with no reply.
func (b *Base) authorize(ctx context.Context, req *request) (reason string, reply bool, err error) {
	login := req.actor.GetLogin()
	if gh.IsBot(login, req.actor.GetType()) {
		return login + " is a bot", false, nil
	}
	perm, err := req.client.Permission(ctx, req.owner, req.repo, login)
	if err != nil {
		return "", false, err
	}
	if !gh.MayAct(perm, false, gh.ActStart) {
		return fmt.Sprintf("@%s, only people with write, maintain or admin permission on %s can ask core to work (your permission: %s).", login, req.fullName(), perm), true, nil
	}
	return "", false, nil
}

// start accepts a request: authorise, record the run (exactly once per
// comment, one active run per issue or pull request), acknowledge with 👀
// and a status comment, and hand the run to the runner.
func (b *Base) start(ctx context.Context, req *request) error {
	logger := zerolog.Ctx(ctx).With().Str(logKeyRepo, req.fullName()).Int(logKeyNumber, req.number).Str(logKeyActor, req.actor.GetLogin()).Logger()
	ctx = logger.WithContext(ctx)
	reason, reply, err := b.authorize(ctx, req)
	if err != nil {
		return err
	}
	if reason != "" {
		logger.Info().Str("reason", reason).Msg("Refused a request")
		b.Metrics.refused.Inc(1)
		if reply {
			_, _, err := req.client.CreateComment(ctx, req.owner, req.repo, req.number, "core: "+reason)
			return err
		}
		return nil
	}
	kind := KindFix
	switch {
	case req.kind != "":
		kind = req.kind
	case req.isPull:
		kind = KindResolve
	}
	now := b.Now()
	run := &Run{
		ID: b.NewRunID(), Repo: req.fullName(), Number: req.number, Kind: kind, Instruction: req.instruction,
		Actor: req.actor.GetLogin(), ActorID: req.actor.GetID(), CommentID: req.commentID, DeliveryID: req.deliveryID,
		InstallationID: req.installationID, State: StateQueued, CreatedAt: now, UpdatedAt: now,
	}
	created, existing, err := b.createRun(ctx, run)
	var over *OverBudget
	if errors.As(err, &over) {
		logger.Info().Str("reason", over.Error()).Msg("Refused a request over the daily budget")
		b.Metrics.refused.Inc(1)
		_, _, err := req.client.CreateComment(ctx, req.owner, req.repo, req.number, "core: "+over.Error())
		return err
	}
	if err != nil {
		return err
	}
	if !created {
		if existing != nil && existing.CommentID == req.commentID && req.commentID != 0 {
			logger.Info().Str(logKeyRun, existing.ID).Msg("Ignoring a comment that already started a run")
			return nil
		}
		link := ""
		if existing != nil {
			link = fmt.Sprintf(" (run `%s`, %s)", existing.ID, existing.State)
		}
		_, _, err := req.client.CreateComment(ctx, req.owner, req.repo, req.number,
			fmt.Sprintf("core is already working on this%s. `/core stop` stops it.", link))
		return err
	}
	b.Metrics.started.Inc(1)
	logger.Info().Str(logKeyRun, run.ID).Msg("Accepted a run")
	if req.commentID != 0 {
		if err := req.client.AddReaction(ctx, req.owner, req.repo, req.commentID, "eyes"); err != nil {
			logger.Warn().Err(err).Msg("Could not react to the comment")
		}
	}
	id, _, err := req.client.CreateComment(ctx, req.owner, req.repo, req.number, statusBody(run, "queued: core will start shortly."))
	if err != nil {
		return err
	}
	run.StatusCommentID = id
	if err := b.Store.UpdateRun(ctx, run); err != nil {
		return err
	}
	return b.dispatch(ctx, req.client, run, req.defaultBranch)
}

// headline is the bot's headline of a run's status comment.
func headline(run *Run, text string) string {
	return fmt.Sprintf("core %s (run `%s`): %s", run.Kind, run.ID, text)
}

// statusBody is the first text of a run's status comment.
func statusBody(run *Run, text string) string {
	return status.Comment{RunID: run.ID, Text: headline(run, text)}.Body()
}

// save moves a run to a state and records it.
func (b *Base) save(ctx context.Context, run *Run, state string) error {
	was := run.Active()
	run.State, run.UpdatedAt = state, b.Now()
	if err := b.Store.UpdateRun(ctx, run); err != nil {
		return err
	}
	if was && !run.Active() {
		b.Metrics.ended(state)
	}
	return nil
}

// setStatus moves a run to a state and writes the status comment's
// headline: only for what the bot itself carries out (queued, dispatched,
// a local run, /core stop); the notes stay.
func (b *Base) setStatus(ctx context.Context, client *gh.Client, run *Run, state, text string) error {
	if err := b.save(ctx, run, state); err != nil {
		return err
	}
	return b.updateStatus(ctx, client, run, func(c *status.Comment) { c.Text = headline(run, text) })
}

// addNote moves a run to a state and adds a note to its status comment,
// leaving what the Action wrote as it is: the bot adds a link or a
// failure, it never replaces the Action's words.
func (b *Base) addNote(ctx context.Context, client *gh.Client, run *Run, state, note string) error {
	if err := b.save(ctx, run, state); err != nil {
		return err
	}
	return b.updateStatus(ctx, client, run, func(c *status.Comment) { c.AddNote(note) })
}

func (b *Base) updateStatus(ctx context.Context, client *gh.Client, run *Run, edit func(*status.Comment)) error {
	if run.StatusCommentID == 0 {
		return nil
	}
	owner, repo, _ := strings.Cut(run.Repo, "/")
	b.statusMu.Lock()
	defer b.statusMu.Unlock()
	return status.Update(ctx, client, owner, repo, run.StatusCommentID, run.ID, edit)
}

// editStatus writes a run's headline with its installation's client, for
// runs no handler holds (a restart).
func (b *Base) editStatus(ctx context.Context, run *Run, text string) error {
	client, err := b.installationClient(run.InstallationID)
	if err != nil {
		return err
	}
	return b.updateStatus(ctx, client, run, func(c *status.Comment) { c.Text = headline(run, text) })
}
