// Package testclass is the harness's classification of a pull request's
// own tests, for reviews (#38): for each test file the pull request adds
// or changes, it runs that file's tests, confined as the contract's checks
// are, on the base (with the head's version of the file copied in: what
// "fails on the base" means for a test the base does not have, or has
// another version of) and on the head, and says whether the file tests the
// change (red on the base, green on the head), does not (green on both),
// fails on the head, or could not run, and why. It needs no model and no
// GitHub: everything comes from the git objects of a clone holding both
// commits, never from files in a workspace, and a test file that is a
// link, a submodule, outside the repository or too big is refused, not
// run. The review prints its table (Markdown) whatever the model says.
package testclass
