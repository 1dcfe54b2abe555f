package buildinfo

import (
	"runtime"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	v := Version()
	if !strings.HasPrefix(v, "core ") || !strings.Contains(v, runtime.Version()) {
		t.Fatalf("Version() = %q, want core's version and its Go", v)
	}
}
