package console

import (
	"fmt"
	"strings"

	"github.com/coreagent/core/internal/clip"
)

// reviewKind is a review run's kind in its report (session/review.Kind).
const reviewKind = "review"

// reviewDetail is what the pages read of a review's report.json (its
// "review": session/review.Report): the findings and the classification
// of the pull request's tests. The console reads the fields it shows and
// tolerates the rest's absence.
type reviewDetail struct {
	Findings []struct {
		File         string `json:"file"`
		Line         int    `json:"line"`
		Claim        string `json:"claim"`
		Confirmed    bool   `json:"confirmed"`
		Reproduction *struct {
			Command []string `json:"command"`
			Head    *ranSide `json:"head"`
			Base    *ranSide `json:"base"`
		} `json:"reproduction"`
	} `json:"findings"`
	Tests *struct {
		Files []struct {
			Path   string  `json:"path"`
			New    bool    `json:"new"`
			Base   ranSide `json:"base"`
			Head   ranSide `json:"head"`
			Class  string  `json:"class"`
			Reason string  `json:"reason"`
		} `json:"files"`
		LeftOut int    `json:"left_out"`
		Error   string `json:"error"`
	} `json:"tests"`
}

// ranSide is one side's run: of a reproduction, or of a test file's tests.
type ranSide struct {
	Exit     int     `json:"exit"`
	Passed   bool    `json:"passed"`
	TimedOut bool    `json:"timed_out"`
	Seconds  float64 `json:"seconds"`
	Error    string  `json:"error"`
}

// String is the side in a few words.
func (s *ranSide) String() string {
	switch {
	case s == nil:
		return "not run"
	case s.Error != "":
		return "could not run: " + clip.Line(s.Error, 120)
	case s.Passed:
		return fmt.Sprintf("passed (%.1fs)", s.Seconds)
	case s.TimedOut:
		return fmt.Sprintf("timed out (%.0fs)", s.Seconds)
	}
	return fmt.Sprintf("exit %d (%.1fs)", s.Exit, s.Seconds)
}

// reviewView is a review as the pages show it: its findings' counts, each
// confirmed finding, and the test classification's rows.
type reviewView struct {
	Confirmed, Unconfirmed int
	Findings               []findingView // the confirmed ones
	Tests                  []testView
	TestsError             string
	LeftOut                int
	Classified             bool // the harness classified the tests
}

// findingView is a confirmed finding: where, what, and the command the
// harness ran on the head and the base.
type findingView struct {
	Where, Claim, Command, Head, Base string
}

// testView is one test file's row.
type testView struct {
	Path, Base, Head, Class, Reason string
}

// classWords are the classes (testclass.Class) as the pages say them.
var classWords = map[string]string{
	"tests_change": "tests the change", "fails_on_head": "fails on the head", "timed_out": "timed out on the head",
	"not_testing": "does not test the change", "new_no_base": "new: cannot run on the base", "head_only": "passes on the head only",
	"could_not_run": "could not run", "refused": "not run",
}

// reviewOf is the review of a report of kind review, or nil.
func reviewOf(d *reportDetail) *reviewView {
	if d.Kind != reviewKind || d.Review == nil {
		return nil
	}
	v := &reviewView{}
	for _, f := range d.Review.Findings {
		if !f.Confirmed {
			v.Unconfirmed++
			continue
		}
		v.Confirmed++
		fv := findingView{Where: clip.Line(f.File, 200), Claim: clip.Line(f.Claim, 500)}
		if f.Line > 0 {
			fv.Where += fmt.Sprintf(":%d", f.Line)
		}
		if p := f.Reproduction; p != nil {
			fv.Command, fv.Head, fv.Base = clip.Line(strings.Join(p.Command, " "), 300), p.Head.String(), p.Base.String()
		}
		v.Findings = append(v.Findings, fv)
	}
	if t := d.Review.Tests; t != nil {
		v.Classified, v.TestsError, v.LeftOut = true, clip.Line(t.Error, 300), t.LeftOut
		for _, f := range t.Files {
			base := f.Base.String()
			if f.New {
				base = "new: " + base
			}
			v.Tests = append(v.Tests, testView{Path: clip.Line(f.Path, 200), Base: base, Head: f.Head.String(),
				Class: firstOf(classWords[f.Class], clip.Line(f.Class, 40)), Reason: clip.Line(f.Reason, 300)})
		}
	}
	return v
}

// findingsText is a review's findings' counts, for the Runs page.
func (v *reviewView) findingsText() string {
	switch {
	case v == nil:
		return ""
	case v.Confirmed == 0 && v.Unconfirmed == 0:
		return "no finding"
	}
	return fmt.Sprintf("%d confirmed, %d unconfirmed", v.Confirmed, v.Unconfirmed)
}
