package sandbox

import "github.com/coreagent/core/sandbox/egress"

// egressCommand is the step's argv run behind the forwarder at exe.
func egressCommand(exe string, argv []string) []string {
	return append([]string{exe, "sandbox", "egress", "--socket", boxDirPath + "/" + egress.Socket, "--listen", egress.Listen, "--"}, argv...)
}
