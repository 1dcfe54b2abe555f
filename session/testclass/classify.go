package testclass

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/coreagent/core/session/contract"
)

// Class is what the harness concluded of one test file.
type Class string

// The classes, the most telling first.
const (
	TestsChange Class = "tests_change"  // red on the base, green on the head
	FailsOnHead Class = "fails_on_head" // red on the head, for the code
	TimedOut    Class = "timed_out"     // killed on the head by its timeout
	NotTesting  Class = "not_testing"   // green on both: it does not test the change
	NewNoBase   Class = "new_no_base"   // new, green on the head, and it cannot run on the base
	HeadOnly    Class = "head_only"     // green on the head; its tests cannot run on the base's code (a Rust source file's)
	CouldNotRun Class = "could_not_run" // the environment kept it from saying anything
	Refused     Class = "refused"       // not run: a link, a submodule, too big, not inside the repository
)

// Options is where and how the tests run.
type Options struct {
	// Confinement runs each command, as the contract's checks run.
	Confinement contract.Confinement
	// Git runs git.
	Git contract.Git
	// Clone is a clone that holds the base's and the head's objects. Its
	// files are never read: the checkouts are made beside it, from its
	// objects alone (contract.CheckoutTree).
	Clone string
	// Progress, when set, is told how many files' tests are about to run.
	Progress io.Writer
}

// commitID is a commit's full name, SHA-1 or SHA-256.
var commitID = regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`)

// IsCommitID reports whether s is a commit's full name, SHA-1 or
// SHA-256: never an option git would read, nor a name a ref could move.
func IsCommitID(s string) bool { return commitID.MatchString(s) }

// check says what is missing from o, or which commit is not named by its
// full SHA.
func (o Options) check(base, head string) error {
	switch {
	case o.Git == nil || o.Confinement.Sandbox == nil || o.Clone == "":
		return errors.New("classify the tests: the options need a Git runner, a sandbox and a clone")
	case !commitID.MatchString(base):
		return fmt.Errorf("classify the tests: the base must be a commit's full SHA, got %q", base)
	case !commitID.MatchString(head):
		return fmt.Errorf("classify the tests: the head must be a commit's full SHA, got %q", head)
	}
	return nil
}

// Side is how a test file's tests ended on one side.
type Side struct {
	Exit     int     `json:"exit"`
	Passed   bool    `json:"passed"`
	TimedOut bool    `json:"timed_out,omitempty"`
	Seconds  float64 `json:"seconds"`
	// OutputHash is "sha256:" and the hex digest of the output kept.
	OutputHash string `json:"output_hash,omitempty"`
	// Error says why it could not run at all; Cause why it failed for the
	// environment's sake (contract.CheckResult's).
	Error string `json:"error,omitempty"`
	Cause string `json:"cause,omitempty"`
	// Output is what the sandbox kept of the output, for the review to
	// quote; never in JSON.
	Output string `json:"-"`
}

// ran reports whether the side said something of the code: it ran, and
// did not fail for the environment's sake.
func (s Side) ran() bool { return s.Error == "" && (s.Passed || s.Cause == "") }

// Classified is one test file and what its tests did on both sides.
type Classified struct {
	Path      string    `json:"path"`
	Ecosystem Ecosystem `json:"ecosystem"`
	// Commands are what ran, on each side, in order, until one did not
	// pass: one, or, for Go, one a test function.
	Commands [][]string `json:"commands,omitempty"`
	// New is set when the base has no such file: the head's was copied
	// into the base's checkout to run there.
	New    bool   `json:"new,omitempty"`
	Base   Side   `json:"base"`
	Head   Side   `json:"head"`
	Class  Class  `json:"class"`
	Reason string `json:"reason"`
}

// Classification is the pull request's test files, classified, and how
// many test files were left out past MaxFiles.
type Classification struct {
	Files   []Classified `json:"files"`
	LeftOut int          `json:"left_out,omitempty"`
	// Error says why the harness could not classify the tests (set by
	// the review that asked, from Classify's error): the files before it
	// are those it got through.
	Error string `json:"error,omitempty"`
}

// Classify classifies the tests of the test files among changed (the
// paths the pull request adds or changes, slash-separated, from the
// top), between the commits base and head of o.Clone: each file's tests
// run on the head, then on the base with the head's version of the file
// put in its place, each confined in a checkout of its own. An error is
// the machine's (git failed, a checkout could not be made); what a file's
// tests did is in its Classified.
func Classify(ctx context.Context, o Options, base, head string, changed []string) (Classification, error) {
	if err := o.check(base, head); err != nil {
		return Classification{}, err
	}
	files, leftOut, err := find(ctx, o.Git, o.Clone, base, head, changed)
	if err != nil {
		return Classification{}, err
	}
	out := Classification{LeftOut: leftOut}
	if n := toRun(files); n > 0 && o.Progress != nil {
		fmt.Fprintf(o.Progress, "classifying the pull request's tests: %d %s on the base and on the head\n", n, map[bool]string{true: "file", false: "files"}[n == 1])
	}
	headDir, baseDir := o.Clone+".tests-head", o.Clone+".tests-base"
	defer os.RemoveAll(headDir)
	defer os.RemoveAll(baseDir)
	if len(files) > 0 {
		if err := contract.CheckoutTree(ctx, o.Git, o.Clone, headDir, head); err != nil {
			return Classification{}, fmt.Errorf("check out the head %s: %w", head, err)
		}
	}
	mountAt := o.Clone
	if real, err := filepath.EvalSymlinks(mountAt); err == nil {
		mountAt = real
	}
	for _, f := range files {
		c, err := classifyOne(ctx, o, f, runDirs{head: headDir, base: baseDir, mountAt: mountAt, baseCommit: base})
		if err != nil {
			return Classification{}, err
		}
		out.Files = append(out.Files, c)
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
	}
	return out, nil
}

// toRun is how many of files are not refused.
func toRun(files []testFile) int {
	n := 0
	for _, f := range files {
		if f.refused == "" {
			n++
		}
	}
	return n
}

// runDirs are the checkouts a file's tests run in.
type runDirs struct {
	head, base, mountAt, baseCommit string
}

// classifyOne runs one file's tests on both sides and classifies them.
func classifyOne(ctx context.Context, o Options, f testFile, d runDirs) (Classified, error) {
	c := Classified{Path: f.path, Ecosystem: f.ecosystem, New: f.new}
	if f.refused != "" {
		c.Class, c.Reason = Refused, f.refused
		return c, nil
	}
	src, err := headSource(ctx, o, f)
	if err != nil {
		return c, err
	}
	cmds, note, unrunnable := commands(f, src, d.head)
	if unrunnable != "" {
		c.Class, c.Reason = CouldNotRun, unrunnable
		return c, nil
	}
	c.Commands = cmds
	c.Head = sideOf(runAll(ctx, o.Confinement, d.head, d.mountAt, cmds))
	if f.ecosystem == Rust && strings.HasPrefix(f.path, "src/") {
		// A Rust source file's tests are in the code they test: the
		// head's version of it in the base would bring the change along.
		c.Base = Side{Exit: -1, Error: "not run: its tests are in the code they test, so the head's tests cannot run on the base's code"}
		c.Class, c.Reason = classOf(c.Base, c.Head, false)
		if c.Head.Passed {
			c.Class, c.Reason = HeadOnly, "it passes on the head; on the base: "+c.Base.Error
		}
	} else {
		if err := overlay(ctx, o, f, d.base, d.baseCommit); err != nil {
			c.Base = Side{Exit: -1, Error: err.Error()}
		} else {
			c.Base = sideOf(runAll(ctx, o.Confinement, d.base, d.mountAt, cmds))
		}
		c.Class, c.Reason = classOf(c.Base, c.Head, f.new)
	}
	if note != "" {
		c.Reason += "; " + note
	}
	return c, nil
}

// runAll runs cmds in dir, in order, until one does not pass, and says
// how the last that ran ended, in the time of all and with the output of
// all.
func runAll(ctx context.Context, conf contract.Confinement, dir, mountAt string, cmds [][]string) contract.CheckResult {
	var r contract.CheckResult
	var seconds float64
	var outputs []string
	for _, argv := range cmds {
		r = conf.Run(ctx, dir, mountAt, argv)
		seconds += r.Seconds
		outputs = append(outputs, r.Output)
		if !r.Passed {
			break
		}
	}
	r.Seconds, r.Output = seconds, strings.Join(outputs, "\n")
	return r
}

// overlay makes dir a checkout of the base with the head's version of the
// file in its place, put there by git from the head's blob (a link or a
// file the base has in the way is replaced, never followed).
func overlay(ctx context.Context, o Options, f testFile, dir, base string) error {
	if err := contract.CheckoutTree(ctx, o.Git, o.Clone, dir, base); err != nil {
		return fmt.Errorf("check out the base: %w", err)
	}
	if _, err := o.Git(ctx, dir, "update-index", "--add", "--cacheinfo", f.mode+","+f.blob+","+f.path); err != nil {
		return fmt.Errorf("the head's %s cannot be put in the base's tree: %w", f.path, err)
	}
	if _, err := o.Git(ctx, dir, "--literal-pathspecs", "checkout-index", "--force", "--", f.path); err != nil {
		return fmt.Errorf("the head's %s cannot be put in the base's checkout: %w", f.path, err)
	}
	return nil
}

// sideOf is a side from the contract's result of a run.
func sideOf(r contract.CheckResult) Side {
	s := Side{Exit: r.Exit, Passed: r.Passed, TimedOut: r.TimedOut, Seconds: r.Seconds, Error: r.Error, Cause: r.Cause, Output: r.Output}
	s.OutputHash = OutputHash(r.Output)
	return s
}

// OutputHash is "sha256:" and the hex digest of output, or "" when there
// was none: how a run's output is named in what the harness reports.
func OutputHash(output string) string {
	if output == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(output))
	return "sha256:" + hex.EncodeToString(sum[:])
}
