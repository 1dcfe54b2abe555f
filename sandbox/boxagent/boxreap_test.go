package boxagent

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseProcStat(t *testing.T) {
	cases := []struct {
		name      string
		line      string
		pid, ppid int
		ok        bool
	}{
		{name: "plain", line: "42 (sleep) S 7 42 42 0 -1", pid: 42, ppid: 7, ok: true},
		{name: "blank and parens in the name", line: "43 (a) b (c) R 1 43 43", pid: 43, ppid: 1, ok: true},
		{name: "a name that fakes the fields", line: "44 (x) S 99 ) S 3 1 1", pid: 44, ppid: 3, ok: true},
		{name: "init's parent is 0", line: "1 (init) S 0 1 1", pid: 1, ppid: 0, ok: true},
		{name: "no name", line: "45 S 1 1"},
		{name: "cut after the name", line: "46 (cut) S"},
		{name: "no pid", line: "(x) S 1"},
		{name: "negative parent", line: "47 (x) S -3"},
		{name: "empty", line: ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pid, ppid, ok := parseProcStat([]byte(tc.line))
			assert.Equal(t, tc.ok, ok)
			if tc.ok {
				assert.Equal(t, tc.pid, pid)
				assert.Equal(t, tc.ppid, ppid)
			}
		})
	}
}

func FuzzParseProcStat(f *testing.F) {
	f.Add([]byte("42 (sleep) S 7 42 42 0 -1"))
	f.Add([]byte("44 (x) S 99 ) S 3 1 1"))
	f.Add([]byte(") ( 1 2"))
	f.Fuzz(func(t *testing.T, b []byte) {
		pid, ppid, ok := parseProcStat(b)
		if ok && (pid <= 0 || ppid < 0) {
			t.Fatalf("parseProcStat(%q) = %d, %d: a pid must be positive", b, pid, ppid)
		}
	})
}

func TestTreeUnder(t *testing.T) {
	cases := []struct {
		name    string
		parents map[int]int
		root    int
		want    []int
	}{
		{name: "nothing under it", parents: map[int]int{1: 0, 2: 1}, root: 2},
		{name: "children and theirs", parents: map[int]int{1: 0, 2: 1, 3: 2, 4: 3, 5: 2, 6: 1}, root: 2, want: []int{3, 4, 5}},
		{name: "a cycle ends", parents: map[int]int{2: 3, 3: 2}, root: 2, want: []int{3}},
		{name: "its own parent", parents: map[int]int{2: 2, 3: 2}, root: 2, want: []int{3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.ElementsMatch(t, tc.want, TreeUnder(tc.root, tc.parents))
		})
	}
}
