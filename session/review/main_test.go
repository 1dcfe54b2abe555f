package review

import (
	"os"
	"testing"

	"github.com/coreagent/core/sandbox/gocache"
)

// The reproductions' tests run real go and node confined in real bwrap,
// with the user's build cache read through this binary, as core's
// GOCACHEPROG.
func TestMain(m *testing.M) {
	gocache.ServeIfAsked(os.Args)
	os.Exit(m.Run())
}
