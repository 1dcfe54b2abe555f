package tools

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

type readFile struct{}

func (readFile) Name() string { return "read_file" }

func (readFile) Doc() string {
	return `read_file: read a text file, whole or a range of lines.
  tool: read_file
  path: cmd/core/main.go
  start_line: 1
  end_line: 80
start_line and end_line are optional, 1-based and inclusive. The reply starts
with a header line naming the path and which lines of how many it shows; the
text follows exactly as in the file. A long file comes back a page at a time
(a longer range when end_line is given, up to the size limit of one result);
the last line then says which start_line reads on.`
}

func (t readFile) Run(ctx context.Context, env *Env, args Args) (Result, error) {
	path, err := args.String("path")
	if err != nil {
		return fail(t.Name(), err)
	}
	start, err := args.OptionalInt("start_line", 1)
	if err != nil {
		return fail(t.Name(), err)
	}
	end, err := args.OptionalInt("end_line", math.MaxInt)
	if err != nil {
		return fail(t.Name(), err)
	}
	f, ok, res, err := readRegular(ctx, env, t.Name(), path, "list_dir shows what is there", "use list_dir to see what it holds")
	if !ok {
		return res, err
	}
	rel, data := f.rel, f.data
	if isBinary(data) {
		return Result{Output: fmt.Sprintf("read_file: %s is a binary file (%d bytes); only text files can be read", rel, len(data)), Target: rel}, nil
	}
	room := env.readPage()
	if args.has("end_line") {
		room = env.outputLimit()
	}
	return Result{Output: showLines(rel, string(data), start, end, args.has("end_line"), room-readNoteRoom), Target: rel}, nil
}

// readNoteRoom is the part of a page kept for the header and the line that
// says how to read on.
const readNoteRoom = 256

// showLines renders lines start..end (1-based, inclusive) of text under a
// header, clamping a range that runs past the file with a note. At most
// room bytes of text are shown, whole lines where one fits; a final line
// says how to read on.
func showLines(rel, text string, start, end int, endGiven bool, room int) string {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	total := len(lines)
	if total == 0 {
		return fmt.Sprintf("%s: empty file (0 lines)", rel)
	}
	var notes []string
	if start < 1 {
		notes = append(notes, fmt.Sprintf("start_line %d clamped to 1", start))
		start = 1
	}
	if start > total {
		return fmt.Sprintf("read_file: start_line %d is past the end of %s, which has %d lines", start, rel, total)
	}
	if end > total {
		if endGiven {
			notes = append(notes, fmt.Sprintf("end_line %d clamped to %d, the last line", end, total))
		}
		end = total
	}
	if end < start {
		return fmt.Sprintf("read_file: end_line %d is before start_line %d", end, start)
	}
	asked := end
	body, end, partial := page(lines[start-1:end], start, max(room, 1))
	header := fmt.Sprintf("%s: lines %d-%d of %d", rel, start, end, total)
	if start == 1 && end == total && !partial {
		header += " (whole file)"
	}
	if len(notes) > 0 {
		header += " (" + strings.Join(notes, "; ") + ")"
	}
	switch {
	case partial:
		body += fmt.Sprintf("\n[line %d is cut: only its first %d bytes fit in one result]", end, len(body))
	case end < asked:
		body += fmt.Sprintf("[lines %d-%d of %d not shown; read on with start_line: %d]", end+1, asked, total, end+1)
	case !strings.HasSuffix(body, "\n"):
		body += "\n[no newline at end of file]"
	}
	return header + "\n" + body
}

// page joins the lines, numbered from first, that fit in room bytes, and
// returns the number of the last one shown. A first line longer than room is
// cut on a UTF-8 boundary, and partial is set.
func page(lines []string, first, room int) (body string, last int, partial bool) {
	n := 0
	for i, l := range lines {
		if n+len(l) > room {
			if i == 0 {
				cut := room
				for cut > 0 && !utf8.RuneStart(l[cut]) {
					cut--
				}
				return l[:cut], first, true
			}
			return strings.Join(lines[:i], ""), first + i - 1, false
		}
		n += len(l)
	}
	return strings.Join(lines, ""), first + len(lines) - 1, false
}
