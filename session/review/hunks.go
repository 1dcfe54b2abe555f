package review

import (
	"regexp"
	"strconv"
	"strings"
)

// hunkHeader is a unified diff hunk's header: @@ -a[,b] +c[,d] @@.
var hunkHeader = regexp.MustCompile(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@`)

// maxHunkLine bounds a hunk's start and length: no file GitHub shows a
// patch of is longer, and a bigger number is not a patch.
const maxHunkLine = 1 << 24

// diffLines are the lines of the head's version of a file that its patch
// (a pull request file's, as GitHub lists it: hunks without the diff
// header) shows: its added and context lines, the only ones a review
// comment on the RIGHT side can sit on. Text that is not a hunk is
// skipped; a hunk's lines never run past what its header counts.
func diffLines(patch string) map[int]bool {
	shown := map[int]bool{}
	line, left := 0, 0
	for text := range strings.SplitSeq(patch, "\n") {
		if m := hunkHeader.FindStringSubmatch(text); m != nil {
			start, err1 := strconv.Atoi(m[1])
			n, err2 := 1, error(nil)
			if m[2] != "" {
				n, err2 = strconv.Atoi(m[2])
			}
			if err1 != nil || err2 != nil || start > maxHunkLine || n > maxHunkLine {
				line, left = 0, 0
				continue
			}
			line, left = start, n
			continue
		}
		if left == 0 || text == "" {
			continue
		}
		switch text[0] {
		case '+', ' ':
			shown[line] = true
			line++
			left--
		}
	}
	return shown
}
