// Package tools is the tool set through which the model acts on its
// workspace: reading, listing, writing and editing files, searching, showing
// the diff, running shell commands behind the approval gate, and declaring
// the work done.
//
// Every path the model names is confined to the Workspace. Failures come in
// two kinds: what the model can fix (a bad path, bad arguments, a file not
// found, a refused or declined command) comes back as an observation in
// Result.Output with a nil error; only infrastructure failure (an I/O error
// on the workspace disk, a cancelled context) is a Go error, and it ends the
// run.
package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/browser"
	"github.com/coreagent/core/session/scrub"
)

// DefaultOutputLimit is the observation size used when Env.OutputLimit is 0.
const DefaultOutputLimit = 16 << 10

// Runner runs commands; *sandbox.Sandbox implements it. Warm starts the
// background warm-up of a workspace's build (nil when there is nothing to
// warm); the go commands Verify runs there wait for it.
type Runner interface {
	Verify(ctx context.Context, tier lang.Tier, argv []string, opts sandbox.RunOptions) (sandbox.Result, error)
	RunHost(ctx context.Context, argv []string, opts sandbox.RunOptions) (sandbox.Result, error)
	Warm(ctx context.Context, workspace string) *sandbox.Warmup
}

var _ Runner = (*sandbox.Sandbox)(nil)

// Env is what the tools act on and through, its settings grouped by
// concern in embedded structs.
type Env struct {
	Workspace *Workspace
	Tier      lang.Tier
	Runner    Runner
	Approver  Approver
	// Issues files issues for file_issue; nil when the repository is not
	// on GitHub.
	Issues IssueFiler
	Commands
	Observations
	Workflows
	Browsing
}

// Commands is how a command the model runs is bounded and shown.
type Commands struct {
	ShellTimeout time.Duration // per run_shell command
	// BuildCeiling bounds a run_shell command that compiles beyond
	// ShellTimeout (sandbox.RunOptions.BuildCeiling); zero means
	// boxagent.BuildCeiling(ShellTimeout).
	BuildCeiling time.Duration
	// Progress, when set, receives the output of the command that runs, as
	// it comes (the session's heartbeat shows its last line).
	Progress io.Writer
	// Echo, when set, receives the output of commands a person approved,
	// as it comes: they see what they allowed.
	Echo io.Writer
}

// Observations is what an observation may hold.
type Observations struct {
	// OutputLimit is the most bytes of one observation; 0 means
	// DefaultOutputLimit. Longer output keeps its head and tail and states
	// the cut.
	OutputLimit int
	// Scrubber removes secrets from every observation, before it is cut
	// to the limit (a cut must not leave half a secret); nil scrubs
	// nothing.
	Scrubber *scrub.Scrubber
}

// Workflows is what the tools may write of the repository's workflows.
type Workflows struct {
	// AllowWorkflowChanges lets write_file and edit_file write workflows
	// and the actions they run; by default they refuse (see WorkflowDir,
	// Guard).
	AllowWorkflowChanges bool
	// Guard is what the workflows ran when the session started (the local
	// actions of its start commit); the tools also refuse what the
	// workspace's workflows use now. nil: only the latter.
	Guard *Guard
}

// Browsing is the run's browser and whom it asks.
type Browsing struct {
	// Browser is the run's browser (--browser); nil without one.
	Browser *browser.Browser
	// Attended is set when a person answers the approver: every browser
	// action then asks them first. Unattended, the browser acts alone on
	// this machine's loopback.
	Attended bool
	// BrowserRemote is set when the user allowed pages from other hosts
	// (--browser-allow-remote): every navigation then needs a person, and
	// an unattended run declines it.
	BrowserRemote bool
}

func (e *Env) outputLimit() int {
	if e.OutputLimit <= 0 {
		return DefaultOutputLimit
	}
	return e.OutputLimit
}

// minReadPage is the smallest page read_file shows without end_line.
const minReadPage = 1536

// readPage is how many bytes read_file shows when no end_line is given: a
// third of the output limit, but at least minReadPage (or the whole limit,
// when that is smaller). Pages keep one file from filling the context; the
// model reads on with start_line.
func (e *Env) readPage() int {
	limit := e.outputLimit()
	return max(limit/3, min(limit, minReadPage))
}

// Call is one action the model asked for.
type Call struct {
	Tool string
	Args Args
}

// Verification records a verification command that ran, for the run report.
type Verification struct {
	Command   string
	ExitCode  int
	Sandboxed bool
	Duration  time.Duration
}

// Result is what one call produced.
type Result struct {
	Output       string        // the observation sent to the model
	Target       string        // what the call acted on, for progress lines: a path, a pattern, a command
	Done         bool          // the done tool was called
	Summary      string        // done's summary
	Verification *Verification // set when run_shell ran a verification command
	// Note is a line for the user's progress output when something
	// happened they should know of (core killed a command at its
	// timeout); empty otherwise.
	Note string
	// Failed says, in a line for the run's event log, why the call did
	// not do what was asked: refused, declined, or bad arguments; empty
	// when it did (a command that ran and exited non-zero did run). It
	// holds no file content.
	Failed string
}

// Tool is one action the model can take.
type Tool interface {
	Name() string
	// Doc is this tool's entry in the system prompt: its arguments (a TOON
	// example) and what it does, in a few lines.
	Doc() string
	// Run performs the action. What the model can fix comes back in
	// Result.Output with a nil error; an error is an infrastructure failure.
	Run(ctx context.Context, env *Env, args Args) (Result, error)
}

// Set is the tool set offered to the model, in order.
type Set struct {
	tools []Tool
	byKey map[string]Tool
	// refused are tools not offered whose calls are answered with a
	// reason (Without).
	refused map[string]string
}

// NewSet returns a set of tools in the given order. A later tool with the
// same name as an earlier one replaces it.
func NewSet(tools ...Tool) *Set {
	s := &Set{byKey: make(map[string]Tool, len(tools))}
	for _, t := range tools {
		if _, dup := s.byKey[t.Name()]; dup {
			for i, old := range s.tools {
				if old.Name() == t.Name() {
					s.tools[i] = t
				}
			}
		} else {
			s.tools = append(s.tools, t)
		}
		s.byKey[t.Name()] = t
	}
	return s
}

// Default returns the standard tool set: read_file, list_dir, write_file,
// edit_file, search, git_diff, run_shell, file_issue and done, in that order.
func Default() *Set {
	return NewSet(readFile{}, listDir{}, writeFile{}, editFile{}, search{}, gitDiff{}, runShell{}, fileIssue{}, done{})
}

// Without returns the set without the tools named: they are not offered
// (neither in Names nor in Doc), and a call to one is answered, as an
// observation, with reason rather than as an unknown tool.
func (s *Set) Without(reason string, names ...string) *Set {
	out := &Set{byKey: make(map[string]Tool, len(s.tools)), refused: make(map[string]string, len(s.refused)+len(names))}
	for k, v := range s.refused {
		out.refused[k] = v
	}
	for _, n := range names {
		out.refused[n] = reason
	}
	for _, t := range s.tools {
		if _, gone := out.refused[t.Name()]; !gone {
			out.tools = append(out.tools, t)
			out.byKey[t.Name()] = t
		}
	}
	return out
}

// With returns the set with more tools, offered before done when the set
// has it (done stays last), the refusals of Without kept but for the
// tools added; a tool named as one the set has replaces it.
func (s *Set) With(more ...Tool) *Set {
	list := slices.Clone(s.tools)
	at := len(list)
	if i := slices.IndexFunc(list, func(t Tool) bool { return t.Name() == "done" }); i >= 0 {
		at = i
	}
	out := NewSet(slices.Insert(list, at, more...)...)
	out.refused = maps.Clone(s.refused)
	for _, t := range more {
		delete(out.refused, t.Name())
	}
	return out
}

// Names returns the tools' names in order.
func (s *Set) Names() []string {
	names := make([]string, len(s.tools))
	for i, t := range s.tools {
		names[i] = t.Name()
	}
	return names
}

// Callable is the names a call may name: the tools offered (Names), then
// those withheld (Without), whose calls are answered with why.
func (s *Set) Callable() []string {
	names := s.Names()
	for n := range s.refused {
		names = append(names, n)
	}
	slices.Sort(names[len(s.tools):])
	return names
}

// Lookup finds a tool by name.
func (s *Set) Lookup(name string) (Tool, bool) {
	t, ok := s.byKey[name]
	return t, ok
}

// Doc returns every tool's doc, in order, for the system prompt.
func (s *Set) Doc() string {
	docs := make([]string, len(s.tools))
	for i, t := range s.tools {
		docs[i] = strings.TrimSpace(t.Doc())
	}
	return strings.Join(docs, "\n\n") + "\n"
}

// Run runs one call. An unknown tool or bad arguments come back as an
// observation. The output is capped to the environment's limit, keeping its
// head and tail and stating the cut.
func (s *Set) Run(ctx context.Context, env *Env, call Call) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if env == nil || env.Workspace == nil {
		return Result{}, errors.New("run tool: no workspace configured")
	}
	if reason, no := s.refused[call.Tool]; no {
		return Result{Output: call.Tool + ": " + reason, Failed: reason}, nil
	}
	t, ok := s.Lookup(call.Tool)
	if !ok {
		return Result{Output: fmt.Sprintf("unknown tool %q: the tools are %s", call.Tool, strings.Join(s.Names(), ", ")), Failed: "unknown tool"}, nil
	}
	r, err := t.Run(ctx, env, call.Args)
	if err != nil {
		if r, ok := observe(call.Tool, err); ok {
			return r, nil
		}
		return Result{}, fmt.Errorf("%s: %w", call.Tool, err)
	}
	r.Output = capOutput(env.Scrubber.String(r.Output), env.outputLimit())
	return r, nil
}
