package gate

import (
	"os"

	"github.com/coreagent/core/sandbox/limit"
)

// Watch returns a Launch that only watches a workspace's growth under
// limits (WatchWorkspace): a command in a box, whose gate and cgroups are
// the box's.
func Watch(limits limit.Limits) *Launch { return &Launch{limits: limits} }

// Files are what bwrap gets after stdin, stdout and stderr: the seccomp
// program (SeccompFD), the gate's read end and the info's write end.
func (l *Launch) Files() []*os.File { return l.files }

// Baseline is the workspace's size when the watch first measured it, and
// whether it did; read it after the watch ended.
func (l *Launch) Baseline() (size int64, measured bool) { return l.baseline, l.based }
