// Package land is what landing needs of a session's work that does not
// hang on the run: the suggested changes a review on a fork's pull request
// carries, made from the session's diff against the pull request's head.
package land
