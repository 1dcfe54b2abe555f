package action

import (
	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/status"
)

// reviewComment is the trigger of a /core review comment: a review of the
// pull request it is on, or, on an issue, nothing, with what to do.
func reviewComment(ev event, cmd gh.Command) trigger {
	if ev.Issue.PullRequest == nil {
		return trigger{nothing: "`/core review` reviews a pull request: comment it on one (on an issue, /core fix opens a pull request that fixes it)"}
	}
	return trigger{mode: ModeReview, number: ev.Issue.Number, instruction: cmd.Args, actor: ev.Comment.User, commentID: ev.Comment.ID}
}

// reviewEvent is the trigger of a pull request event that asks for a
// review: the core:review label, or, with mode auto and review_on_open
// (the repository variable CORE_REVIEW_ON_OPEN), the pull request opened,
// reopened or pushed to. ok is false for any other event.
func reviewEvent(eventName string, ev event, in Inputs) (trigger, bool) {
	if eventName == "issues" || ev.PullRequest == nil {
		return trigger{}, false
	}
	switch {
	case ev.Action == "labeled" && ev.Label != nil && ev.Label.Name == status.ReviewLabel:
		return trigger{mode: ModeReview, number: ev.PullRequest.Number, actor: ev.Sender}, true
	case in.Mode == ModeAuto && in.ReviewOnOpen && (ev.Action == "opened" || ev.Action == "reopened" || ev.Action == "synchronize"):
		// Nobody asked: the repository did, through its variable; the
		// review runs with the workflow's token and posts only a review.
		return trigger{mode: ModeReview, number: ev.PullRequest.Number}, true
	}
	return trigger{}, false
}
