package contract

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestKilledCheckNote: a check killed at its time says where the time
// went and what helps, and suggests a narrower command only when there is
// one (issue #35: "go test ." was told to run one package).
func TestKilledCheckNote(t *testing.T) {
	t.Parallel()
	compiled := CheckResult{Exit: -1, TimedOut: true, Seconds: 230, Uncounted: Uncounted{BuiltSeconds: 110}, Sandboxed: true}
	ceiling := CheckResult{Exit: -1, TimedOut: true, Seconds: 480, Uncounted: Uncounted{BuiltSeconds: 470, AtCeiling: true}, Sandboxed: true}
	tests := []struct {
		name    string
		check   CheckRun
		want    []string
		notWant []string
	}{
		{
			name:  "one package that compiled, then ran past the timeout",
			check: checkRun("go test .", green, compiled),
			want: []string{"core killed a check that ran past the shell timeout of 2m0s (a wait for the module download does not count): raise it with --shell-timeout",
				"go test . ran for 3m50s, of which it compiled for 1m50s (not counted)", "stays in the build cache for the next run"},
			notWant: []string{"narrower"},
		},
		{
			name:    "one test, at the build ceiling",
			check:   checkRun("go test -run TestX ./...", stuck, ceiling),
			want:    []string{"core killed a check still compiling at the build ceiling of 8m0s (the shell timeout of 2m0s does not count the time a check compiles; the ceiling does): raise it with --build-ceiling"},
			notWant: []string{"narrower", "past the shell timeout"},
		},
		{
			name:  "every package, not compiling",
			check: checkRun("go test ./...", green, stuck),
			want:  []string{"raise it with --shell-timeout, or check with a narrower command (one package, or go test -run one test)"},
		},
		{
			name:    "npm test: nothing core knows to narrow",
			check:   checkRun("npm test", green, stuck),
			notWant: []string{"narrower"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewContract([]CheckRun{tt.check}, 2*time.Minute)
			var b strings.Builder
			c.WriteText(&b)
			for _, w := range append(tt.want, "core killed a check") {
				assert.Contains(t, b.String(), w)
			}
			for _, n := range tt.notWant {
				assert.NotContains(t, b.String(), n)
			}
		})
	}
}
