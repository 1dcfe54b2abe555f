package session

import (
	"strings"
	"time"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/review"
)

// Goal is what a run is to do, and on which repository.
type Goal struct {
	// ID is the new session's id; empty makes one (NewID). Entry points
	// that must name the session before it starts (a status comment) set it.
	ID string
	// Repo is the repository: owner/name on GitHub, or a local path.
	Repo string
	// Prompt is the goal in words; Issue, for a GitHub repository, takes
	// the goal from an issue. With both, the prompt comes first.
	Prompt string
	Issue  int
	// IssueBefore, when set, is where the issue's conversation ends for the
	// goal (default: the run's start). The Action of a run the bot
	// dispatched sets when the bot took it: what came after reaches the run
	// as messages, its starter's taken and anyone else's refused.
	IssueBefore time.Time
	// PullRequest, for a GitHub repository, is an open pull request whose
	// head the session starts from and lands on.
	PullRequest int
	// Pull is that pull request when the caller already fetched and
	// checked it (LandablePull): it is not fetched again.
	Pull *gh.PullRequest
	// Base is the branch or commit to start from; empty means the
	// repository's default branch. For a GitHub repository, the head branch
	// of an open pull request means: land on that pull request.
	Base string
	// Branch is where the work lands; empty means core-session/<id>.
	Branch string
	// Clean starts a local repository's session from its HEAD alone;
	// otherwise uncommitted and untracked (not ignored) work is included.
	Clean bool
	// Review, when set, makes the run a review of the head it starts from
	// (review_run.go): it changes, commits and pushes nothing.
	Review *review.Goal
}

// goalLength bounds a goal: a line on the console's Runs page.
const goalLength = 200

// goalOf says in a line what a session is for: its prompt, or else the
// first line of its instruction, which for an issue is "Issue #N: title".
func goalOf(prompt, instruction string) string {
	if p := strings.TrimSpace(prompt); p != "" {
		return clip.Line(p, goalLength)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(instruction), "\n")
	return clip.Line(line, goalLength)
}
