package land

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/clip"
)

// FileChange is one file of the session's diff against the pull request's
// head (git diff -U0), hunk by hunk.
type FileChange struct {
	path    string // the head's path (the new one for an added file)
	header  string // the diff --git ... lines up to the first hunk
	added   bool   // a new file
	deleted bool   // a file removed whole
	binary  bool
	hunks   []hunk
}

// hunk is one change: the head's lines oldStart..oldStart+oldCount-1 become
// lines (oldCount 0: inserted after line oldStart).
type hunk struct {
	oldStart, oldCount int
	lines              []string // the new text, without "+"
	text               string   // the hunk as the diff shows it
}

var hunkLine = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@`)

// ParseDiff reads a git diff made with -U0 and --no-renames.
func ParseDiff(diff string) []FileChange {
	var out []FileChange
	var f *FileChange
	var h *hunk
	for _, line := range strings.SplitAfter(diff, "\n") {
		bare := strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "diff --git "):
			out = append(out, FileChange{header: line})
			f, h = &out[len(out)-1], nil
		case f == nil:
		case strings.HasPrefix(line, "@@ "): // hunk lines start with +, - or a blank
			m := hunkLine.FindStringSubmatch(bare)
			if m == nil {
				continue
			}
			start, _ := strconv.Atoi(m[1])
			count := 1
			if m[2] != "" {
				count, _ = strconv.Atoi(m[2])
			}
			f.hunks = append(f.hunks, hunk{oldStart: start, oldCount: count, text: line})
			h = &f.hunks[len(f.hunks)-1]
		case h != nil:
			h.text += line
			if strings.HasPrefix(line, "+") {
				h.lines = append(h.lines, bare[1:])
			}
		default: // the file's header
			f.header += line
			switch {
			case strings.HasPrefix(line, "new file mode"):
				f.added = true
			case strings.HasPrefix(line, "deleted file mode"):
				f.deleted = true
			case strings.HasPrefix(line, "Binary files "), strings.HasPrefix(line, "GIT binary patch"):
				f.binary = true
			case strings.HasPrefix(line, "+++ b/"): // a name with a blank ends in a tab
				f.path = strings.TrimSuffix(strings.TrimPrefix(bare, "+++ b/"), "\t")
			case strings.HasPrefix(line, "--- a/") && f.path == "":
				f.path = strings.TrimSuffix(strings.TrimPrefix(bare, "--- a/"), "\t")
			}
		}
	}
	for i := range out {
		if out[i].path == "" { // binary or mode-only: the path from the diff --git line
			fields := strings.Fields(strings.TrimPrefix(strings.SplitN(out[i].header, "\n", 2)[0], "diff --git "))
			if len(fields) == 2 {
				out[i].path = strings.TrimPrefix(fields[1], "b/")
			}
		}
	}
	return out
}

// maxSuggestion keeps a suggestion under GitHub's 65,536 characters a
// comment; a longer hunk goes to the review's body (which cuts it short).
const maxSuggestion = 60000

// Suggestions are the session's changes as a review: suggestions on the
// lines of the pull request's diff, and the rest as patches.
type Suggestions struct {
	Comments []gh.DraftComment
	Rest     []string // patches of what no suggestion can express, one a piece
}

// Suggest turns the session's changes into suggestions where GitHub takes
// them: a hunk of a file the pull request changes, on head lines its diff
// shows (all in one of its hunks). A hunk that inserts lines anchors on the
// line above it (or, at the top of the file, the line below) and repeats
// it. New files, removed files, binary files and hunks outside the pull
// request's diff are returned as patches. head reads a file of the
// pull request's head, line by line.
func Suggest(changes []FileChange, files []gh.PullFile, head func(path string) ([]string, error)) (Suggestions, error) {
	shown := map[string]map[int]int{}
	for _, f := range files {
		shown[f.Path] = diffLines(f.Patch)
	}
	var out Suggestions
	for _, f := range changes {
		lines, inPull := shown[f.path]
		if f.added || f.deleted || f.binary || !inPull || len(f.hunks) == 0 {
			out.Rest = append(out.Rest, f.patch(f.hunks...))
			continue
		}
		var src []string
		for _, h := range f.hunks {
			start, end, text := h.oldStart, h.oldStart+h.oldCount-1, h.lines
			if h.oldCount == 0 {
				if src == nil {
					var err error
					if src, err = head(f.path); err != nil {
						return Suggestions{}, err
					}
				}
				switch {
				case h.oldStart >= 1 && h.oldStart <= len(src): // after line oldStart
					start, end = h.oldStart, h.oldStart
					text = append([]string{src[h.oldStart-1]}, h.lines...)
				case h.oldStart == 0 && len(src) > 0: // at the top
					start, end = 1, 1
					text = append(append([]string{}, h.lines...), src[0])
				default:
					out.Rest = append(out.Rest, f.patch(h))
					continue
				}
			}
			first, ok1 := lines[start]
			last, ok2 := lines[end]
			if !ok1 || !ok2 || first != last {
				out.Rest = append(out.Rest, f.patch(h))
				continue
			}
			body := suggestionBlock(text)
			if len(body) > maxSuggestion {
				out.Rest = append(out.Rest, f.patch(h))
				continue
			}
			c := gh.DraftComment{Path: f.path, Line: end, Body: body}
			if start < end {
				c.StartLine = start
			}
			out.Comments = append(out.Comments, c)
		}
	}
	return out, nil
}

// patch is the file's header with the given hunks.
func (f FileChange) patch(hs ...hunk) string {
	var b strings.Builder
	b.WriteString(f.header)
	for _, h := range hs {
		b.WriteString(h.text)
	}
	return b.String()
}

// diffLines maps each line of the head a pull request's patch shows (added
// and context lines: the RIGHT side) to its hunk.
func diffLines(patch string) map[int]int {
	lines := map[int]int{}
	i := -1
	for _, line := range strings.Split(patch, "\n") {
		if !strings.HasPrefix(line, "@@ ") {
			continue
		}
		i++
		_, right, ok := strings.Cut(line, " +")
		if !ok {
			continue
		}
		right, _, _ = strings.Cut(right, " ")
		s, n, found := strings.Cut(right, ",")
		start, err := strconv.Atoi(s)
		if err != nil {
			continue
		}
		count := 1
		if found {
			if count, err = strconv.Atoi(n); err != nil {
				continue
			}
		}
		for l := start; l < start+count; l++ {
			lines[l] = i
		}
	}
	return lines
}

// suggestionBlock is a GitHub suggestion: the lines that replace the
// commented ones, fenced with more backticks than the text holds.
func suggestionBlock(lines []string) string {
	text := strings.Join(lines, "\n")
	fence := clip.Fence(text)
	if len(lines) == 0 {
		return fmt.Sprintf("%ssuggestion\n%s", fence, fence)
	}
	return fmt.Sprintf("%ssuggestion\n%s\n%s", fence, text, fence)
}
