// Package contract is the harness's own verdict on a session's result: the
// checks it holds the result to, run by the Checker (baselines in a
// checkout of the start commit, results in one of the tree frozen at
// done), how one run of a check ended, the verdict
// of each check against its baseline and of the whole, and the contract
// rendered for people, pull requests and status comments.
package contract
