package review

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDiffLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, patch string
		want        []int
	}{
		{"added file", "@@ -0,0 +1,2 @@\n+a\n+b", []int{1, 2}},
		{"one line, no count", "@@ -1 +1 @@\n-a\n+b", []int{1}},
		{"context and removals", "@@ -3,4 +3,4 @@ func f() {\n x\n-y\n+Y\n z\n-w\n+W", []int{3, 4, 5, 6}},
		{"two hunks", "@@ -1,2 +1,2 @@\n a\n+b\n@@ -10 +10,2 @@\n c\n+d", []int{1, 2, 10, 11}},
		{"no newline note", "@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b", []int{1}},
		{"lines past the count", "@@ -1 +1 @@\n+a\n+b\n+c", []int{1}},
		{"a removed file", "@@ -1,2 +0,0 @@\n-a\n-b", nil},
		{"not a patch", "+a\n b", nil},
		{"empty", "", nil},
		{"a header too big", "@@ -1 +99999999999999999999,2 @@\n+a", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := slices.Sorted(maps.Keys(diffLines(tc.patch)))
			assert.Equal(t, tc.want, got)
		})
	}
}

func FuzzDiffLines(f *testing.F) {
	for _, s := range []string{"@@ -0,0 +1,2 @@\n+a\n+b", "@@ -3,4 +3,4 @@ f\n x\n-y\n+Y\n z", "@@ -1 +1 @@\n-a\n\\ x\n+b", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, patch string) {
		shown := diffLines(patch)
		plus := 0
		for i := range len(patch) {
			if (patch[i] == '+' || patch[i] == ' ') && (i == 0 || patch[i-1] == '\n') {
				plus++
			}
		}
		if len(shown) > plus {
			t.Fatalf("%d lines shown of a patch with %d added or context lines", len(shown), plus)
		}
		for l := range shown {
			if l < 0 || l > 2*maxHunkLine {
				t.Fatalf("line %d out of bounds", l)
			}
		}
	})
}
