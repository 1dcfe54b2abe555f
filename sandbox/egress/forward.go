package egress

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
)

// The inside of the dependency step's network (egress.go): core's
// executable, started by the step as `core sandbox egress --socket PATH
// --listen ADDR -- ARGV…`, listens on the step's loopback at ADDR, passes
// each connection to the host's proxy through the Unix socket PATH, and
// runs ARGV as its child; it exits with the child's status. It decides
// nothing: what may be reached is the host's to say.

// IfAsked runs the step's forwarder and exits when args (os.Args)
// are how a dependency step starts it, and returns otherwise. The TestMain
// of a package whose tests run dependency steps with the test binary as
// core's executable (Config.Agent) calls it first, as core's command line
// does.
func IfAsked(args []string) {
	socket, listen, argv, ok := egressArgs(args)
	if !ok {
		return
	}
	code, err := RunForward(socket, listen, argv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "core sandbox egress:", err)
		os.Exit(125)
	}
	os.Exit(code)
}

// egressArgs reads `<exe> sandbox egress --socket PATH --listen ADDR --
// ARGV…`.
func egressArgs(args []string) (socket, listen string, argv []string, ok bool) {
	if len(args) < 9 || args[1] != "sandbox" || args[2] != "egress" || args[3] != "--socket" || args[5] != "--listen" || args[7] != "--" {
		return "", "", nil, false
	}
	return args[4], args[6], args[8:], true
}

// RunForward listens at listen, forwards each connection to the
// Unix socket, and runs argv until it ends: its exit status, or an error
// when it could not start it or listen.
func RunForward(socket, listen string, argv []string) (int, error) {
	l, err := net.Listen("tcp", listen)
	if err != nil {
		return 0, fmt.Errorf("listen for the step's proxy: %w", err)
	}
	defer l.Close()
	// Connections still open when the command ends are not waited for:
	// the step is over, and its namespace goes with this process.
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("unix", socket)
				if err != nil {
					return
				}
				defer up.Close()
				splice(c, up)
			}()
		}
	}()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err = cmd.Run()
	_ = l.Close()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	if err != nil {
		return 0, fmt.Errorf("run %s: %w", argv[0], err)
	}
	return 0, nil
}
