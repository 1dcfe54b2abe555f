package testkit

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Parallel makes a test binary run up to n parallel tests at once
// (-test.parallel, whose default is GOMAXPROCS), unless its command line
// sets it or GOMAXPROCS is higher: for a package whose tests wait more
// than they compute (a model's reply, a poll, a child process). Call it
// from TestMain, before m.Run.
func Parallel(n int) {
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(strings.TrimLeft(a, "-"), "test.parallel") {
			return
		}
	}
	if f := flag.Lookup("test.parallel"); f != nil && n > runtime.GOMAXPROCS(0) {
		_ = f.Value.Set(strconv.Itoa(n))
	}
}
