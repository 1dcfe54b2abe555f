package session

import (
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/coreagent/core/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.AgentIfAsked(os.Args) // started inside a run's box as its agent, as core is
	if len(os.Args) > 2 && os.Args[1] == "sandbox" && os.Args[2] == "gocache" {
		// Started inside the sandbox as GOCACHEPROG, as core is.
		os.Exit(serveGoCache(os.Args[3:]))
	}
	os.Exit(m.Run())
}

// serveGoCache is `core sandbox gocache` for userCacheSandbox.
func serveGoCache(args []string) int {
	flags := map[string]string{}
	for i := 0; i+1 < len(args); i += 2 {
		flags[args[i]] = args[i+1]
	}
	if err := sandbox.ServeGoCacheProg(os.Stdin, os.Stdout, flags["--dir"], flags["--socket"], flags["--stage"], flags["--shared"]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// userCacheSandbox is a bwrap sandbox as the command line makes it: the
// user's Go caches read through this test binary (as core sandbox
// gocache), so that a confined build does not compile the standard
// library afresh.
func userCacheSandbox(t *testing.T, home string) *sandbox.Sandbox {
	t.Helper()
	requireBwrap(t)
	cfg, err := sandbox.ConfigFromEnv(home, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Mode, cfg.CacheProg = sandbox.ModeBwrap, os.Args[0]
	sb := sandbox.New(cfg)
	t.Cleanup(func() { sb.Close() })
	return sb
}

// boxSandbox is a bwrap sandbox whose boxes run this test binary as their
// agent. Without a usable sandbox the test is skipped, unless
// CORE_REQUIRE_BWRAP=1 (as in CI).
func boxSandbox(t *testing.T, home string) *sandbox.Sandbox {
	t.Helper()
	_, err := exec.LookPath("bwrap")
	if err == nil {
		p := sandbox.New(sandbox.Config{Home: t.TempDir(), Path: os.Getenv("PATH")}).Probe(t.Context())
		if !p.Usable {
			err = p.Err()
		}
	}
	if err != nil {
		if os.Getenv("CORE_REQUIRE_BWRAP") == "1" {
			t.Fatalf("CORE_REQUIRE_BWRAP=1 but the sandbox is not usable: %v", err)
		}
		t.Skipf("sandbox not usable here (set CORE_REQUIRE_BWRAP=1 to make this a failure): %v", err)
	}
	sb := sandbox.New(sandbox.Config{Home: home, Mode: sandbox.ModeBwrap, Path: os.Getenv("PATH"), HostHome: os.Getenv("HOME"), Agent: os.Args[0]})
	t.Cleanup(func() { sb.Close() })
	return sb
}
