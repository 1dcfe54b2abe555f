// Package buildinfo says which core this is: `core version`'s line, and
// the core a receipt names.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version describes this binary: the module version, the VCS revision it
// was built from (with "+dirty" for uncommitted changes) and its Go.
func Version() string {
	v, rev, dirty, when := "(devel)", "", false, ""
	if info, ok := debug.ReadBuildInfo(); ok {
		if info.Main.Version != "" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			case "vcs.time":
				when = s.Value
			}
		}
	}
	out := "core " + v
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "+dirty"
		}
		out += ", revision " + rev
		if when != "" {
			out += " (" + when + ")"
		}
	}
	return fmt.Sprintf("%s, %s %s/%s", out, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
