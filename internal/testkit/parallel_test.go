package testkit

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Parallel raises -test.parallel only when the command line leaves it
// alone, and never below GOMAXPROCS.
func TestParallel(t *testing.T) {
	f := flag.Lookup("test.parallel")
	was := f.Value.String()
	t.Cleanup(func() { _ = f.Value.Set(was) })
	given := false
	for _, a := range os.Args[1:] {
		given = given || strings.Contains(a, "test.parallel")
	}
	Parallel(1)
	if got := f.Value.String(); got != was {
		t.Errorf("Parallel(1) set %s, want %s kept (GOMAXPROCS %d)", got, was, runtime.GOMAXPROCS(0))
	}
	n := runtime.GOMAXPROCS(0) + 3
	Parallel(n)
	want := strconv.Itoa(n)
	if given {
		want = was
	}
	if got := f.Value.String(); got != want {
		t.Errorf("Parallel(%d) with -test.parallel given %v: %s, want %s", n, given, got, want)
	}
}
