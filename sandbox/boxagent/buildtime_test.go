package boxagent

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestOverTime(t *testing.T) {
	t.Parallel()
	s := time.Second
	tests := []struct {
		name                           string
		elapsed, built, timeout, limit time.Duration
		over, atCeiling                bool
	}{
		{name: "no timeout", elapsed: time.Hour, built: 0, timeout: 0, limit: 0},
		{name: "no ceiling: the timeout counts everything", elapsed: 120 * s, built: 110 * s, timeout: 120 * s, over: true},
		{name: "a ceiling no greater than the timeout is none", elapsed: 120 * s, built: 110 * s, timeout: 120 * s, limit: 120 * s, over: true},
		{name: "compiling time does not count", elapsed: 200 * s, built: 110 * s, timeout: 120 * s, limit: 480 * s},
		{name: "the test's own time counts", elapsed: 231 * s, built: 110 * s, timeout: 120 * s, limit: 480 * s, over: true},
		{name: "not compiling: the timeout as before", elapsed: 120 * s, timeout: 120 * s, limit: 480 * s, over: true},
		{name: "the ceiling holds while compiling", elapsed: 480 * s, built: 470 * s, timeout: 120 * s, limit: 480 * s, over: true, atCeiling: true},
		{name: "just below the ceiling", elapsed: 479 * s, built: 470 * s, timeout: 120 * s, limit: 480 * s},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			over, atCeiling := overTime(tt.elapsed, tt.built, tt.timeout, tt.limit)
			assert.Equal(t, tt.over, over, "over")
			assert.Equal(t, tt.atCeiling, atCeiling, "at the ceiling")
		})
	}
}

func TestParseStat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, line string
		want       proc
		bad        bool
	}{
		{name: "compile", line: "4242 (compile) R 4200 4200 1 0 -1 4194304 1 0 0 0", want: proc{pid: 4242, ppid: 4200, comm: "compile"}},
		{name: "a name with spaces and parentheses", line: "7 (a (b) c) S 1 7 7 0", want: proc{pid: 7, ppid: 1, comm: "a (b) c"}},
		{name: "a test binary", line: "99 (app.test) S 98 1 1", want: proc{pid: 99, ppid: 98, comm: "app.test"}},
		{name: "no name", line: "12 S 1", bad: true},
		{name: "no parent", line: "12 (x) S", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseStat([]byte(tt.line))
			assert.Equal(t, !tt.bad, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestCompiling(t *testing.T) {
	t.Parallel()
	cacheProg := func(pid int) bool { return pid == 50 }
	tests := []struct {
		name  string
		procs []proc
		want  bool
	}{
		{name: "go test compiling a dependency", want: true, procs: []proc{
			{1, 0, "bwrap"}, {2, 1, "sh"}, {3, 2, "go"}, {4, 3, "compile"}}},
		{name: "cargo's rustc", want: true, procs: []proc{
			{1, 0, "bwrap"}, {2, 1, "cargo"}, {3, 2, "rustc"}}},
		{name: "cgo's C compiler", want: true, procs: []proc{
			{1, 0, "bwrap"}, {3, 1, "go"}, {4, 3, "cgo"}, {5, 4, "gcc"}, {6, 5, "cc1"}}},
		{name: "the go command between compiles, with its cache program", want: true, procs: []proc{
			{1, 0, "bwrap"}, {3, 1, "go"}, {50, 3, "core"}}},
		{name: "the test binary runs", want: false, procs: []proc{
			{1, 0, "bwrap"}, {3, 1, "go"}, {50, 3, "core"}, {7, 3, "app.test"}}},
		{name: "a test binary runs while another package compiles", want: true, procs: []proc{
			{1, 0, "bwrap"}, {3, 1, "go"}, {7, 3, "app.test"}, {8, 3, "compile"}}},
		{name: "go run's program", want: false, procs: []proc{
			{1, 0, "bwrap"}, {3, 1, "go"}, {7, 3, "main"}}},
		{name: "a test that sleeps", want: false, procs: []proc{
			{1, 0, "bwrap"}, {2, 1, "npm"}, {3, 2, "node"}}},
		{name: "a compiler outside the command", want: false, procs: []proc{
			{1, 0, "bwrap"}, {2, 1, "sleep"}, {9, 0, "compile"}}},
		{name: "the command has ended", want: false, procs: []proc{{9, 0, "compile"}}},
		{name: "a loop of parents ends", want: false, procs: []proc{
			{1, 2, "sh"}, {2, 1, "sh"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, compiling(tt.procs, 1, cacheProg))
		})
	}
}

func TestKilledLine(t *testing.T) {
	t.Parallel()
	assert.Contains(t, KilledLine(2*time.Minute, 0, Timing{Over: true}), "ran past its 2m0s timeout]")
	assert.Contains(t, KilledLine(2*time.Minute, 8*time.Minute, Timing{Over: true, Built: 110 * time.Second}),
		"ran past its 2m0s timeout, not counting 1m50s it spent compiling]")
	assert.Contains(t, KilledLine(2*time.Minute, 8*time.Minute, Timing{Over: true, AtCeiling: true, Built: 7 * time.Minute}),
		"ran past its build ceiling of 8m0s")
}
