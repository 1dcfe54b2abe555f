// Package limit bounds and accounts for the processes of a confined command:
// the limits (Limits, the note that names the one hit), the cgroups that
// enforce and count them, the cpu cgroup that makes a background command
// yield, and the seccomp filter every sandboxed process runs under.
package limit

import (
	"io/fs"
	"os"
	"time"
)

// BackgroundNice is the niceness of a background command
// (RunOptions.Background): against a command at the default priority it
// gets about a tenth of the CPU time (weights 110 and 1024), so it yields
// to the commands someone waits for, yet is not starved for good on a
// machine busy with others' work, as it would be at 19 (weight 15).
const BackgroundNice = 10

// WaitDelay is how long Run waits for the output pipes to close after the
// command was killed or exited while a descendant still held them.
const WaitDelay = 3 * time.Second

// IsExecutable reports whether p is a regular file with an execute bit.
func IsExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&fs.FileMode(0o111) != 0
}
