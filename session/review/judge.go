package review

import (
	"cmp"
	"fmt"

	"github.com/coreagent/core/internal/clip"
)

// Judge is the rule that confirms a finding, from the harness's runs of
// its reproduction alone: confirmed only when the head's run ran (no
// Error), failed (neither passed nor timed out) and its output contains
// the prediction (Matched, of a non-empty Expect); and the base's run ran,
// did not time out, and either passed or did not fail that way. Every
// other finding is unconfirmed, and Why says why in one sentence. The
// model's words never enter into it.
func Judge(f Finding) Finding {
	f.Confirmed, f.Why = false, why(f)
	if f.Why == "" {
		f.Confirmed = true
		f.Why = "the reproduction fails on the head with the predicted output, and "
		if f.Reproduction.Base.Passed {
			f.Why += "passes on the base"
		} else {
			f.Why += "does not fail that way on the base"
		}
	}
	return f
}

// why says why f is not confirmed, or "" when it is.
func why(f Finding) string {
	r := f.Reproduction
	switch {
	case r == nil:
		return "no reproduction: the finding is only the model's word"
	case r.Head == nil:
		return cmp.Or(f.Why, "the reproduction was not run")
	case r.Head.Error != "":
		return "it could not run on the head: " + r.Head.Error
	case r.Head.TimedOut:
		return "it timed out on the head: a reproduction must fail, not hang"
	case r.Head.Passed:
		return "the reproduction passed on the head: it shows no bug"
	case r.Expect == "":
		return "it failed on the head, but it predicts no output (expect): any failure would do"
	case !r.Head.Matched:
		return fmt.Sprintf("it failed on the head, but its output does not contain the prediction %q", clip.Line(r.Expect, 120))
	case r.Base == nil:
		return "it was not run on the base, so nothing shows the bug is this pull request's"
	case r.Base.Error != "":
		return "it could not run on the base, so nothing shows the bug is this pull request's: " + r.Base.Error
	case r.Base.TimedOut:
		return "it timed out on the base, so nothing shows the base is without the bug"
	case !r.Base.Passed && r.Base.Matched:
		return "it fails the same way on the base: the bug is not this pull request's"
	}
	return ""
}
