// Package land is how a session's work lands, on a local repository or on
// GitHub. The trees of a run are git's: the workspace's tree taken at done
// (Git.WorkTree) is the one checked, held to before it lands (SameTree,
// Oversized) and read for its workflows (Git.Tree). A repository on this
// machine is cloned, and the session's branch fetched into it as a ref, its
// working tree, index and HEAD untouched; the uncommitted work a session
// starts from is kept as a snapshot and left out of what lands. On GitHub:
// where a session on a GitHub repository starts (a new branch, the draft
// core already opened for the issue, or an open pull request), and how its
// checked commit is answered there: pushed to a branch with a draft pull
// request, pushed onto an open pull request with a comment, or, for a
// fork's pull request, posted as a review with suggested changes made from
// the session's diff against the pull request's head. The session hands it
// what it needs (Goal, Work, a Git runner); it never reads a run.
package land
