package sandbox

import (
	"fmt"
	"io"
)

// Waits is what a RunOptions.Progress writer may also do (a heartbeat):
// show what a command waits for, for as long as it waits and no longer.
// Waiting says that the wait began; the function it returns, that it
// ended. Core's waits before a command runs (the module download under
// way, the dependency step) go through it, so that what a heartbeat
// shows of them ends with them.
type Waits interface {
	Waiting(what string) (ended func())
}

// waitingFor tells progress that a command waits for what: through Waits
// when progress has it, else in one line, "waiting for what". It returns
// the function that says the wait ended.
func waitingFor(progress io.Writer, what string) func() {
	if w, ok := progress.(Waits); ok {
		return w.Waiting(what)
	}
	if progress != nil {
		fmt.Fprintf(progress, "waiting for %s\n", what)
	}
	return func() {}
}

// progressf writes one line on the command's progress writer, if any.
func progressf(opts RunOptions, format string, args ...any) {
	if opts.Progress != nil {
		fmt.Fprintf(opts.Progress, format+"\n", args...)
	}
}
