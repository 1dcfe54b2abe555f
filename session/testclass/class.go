package testclass

import "fmt"

// classOf classifies a test file from its two sides. The head decides
// first: a file whose tests fail there fails on the head, whatever the
// base did; one green on the head tests the change when it was red on the
// base (for a new file: red with the file copied in).
func classOf(base, head Side, isNew bool) (Class, string) {
	copied := ""
	if isNew {
		copied = " (a new file: copied into the base to run there)"
	}
	switch {
	case !head.ran():
		return CouldNotRun, "on the head: " + whyNot(head)
	case head.TimedOut:
		return TimedOut, fmt.Sprintf("killed by its timeout on the head after %.0fs", head.Seconds)
	case !head.Passed:
		return FailsOnHead, fmt.Sprintf("it fails on the head (exit %d)", head.Exit)
	case !base.ran() && isNew:
		return NewNoBase, "new: it passes on the head and cannot run on the base: " + whyNot(base)
	case !base.ran():
		return CouldNotRun, "it passes on the head; on the base: " + whyNot(base)
	case base.TimedOut:
		return TestsChange, fmt.Sprintf("killed by its timeout on the base after %.0fs%s, it passes on the head", base.Seconds, copied)
	case base.Passed:
		return NotTesting, "it passes on the base" + copied + " and on the head: it does not test the change"
	}
	return TestsChange, fmt.Sprintf("it fails on the base%s (exit %d) and passes on the head", copied, base.Exit)
}

// whyNot says why a side said nothing of the code.
func whyNot(s Side) string {
	if s.Error != "" {
		return s.Error
	}
	return s.Cause
}
