package tools

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// maxListed is how many occurrence line numbers edit_file names.
const maxListed = 20

type editFile struct{}

func (editFile) Name() string { return "edit_file" }

func (editFile) Doc() string {
	return `edit_file: replace one exact piece of text in a file.
  tool: edit_file
  path: internal/greet/greet.go
  old_text: "return \"hello\""
  new_text: "return \"hello, world\""
old_text must occur exactly once, matching the file character for character,
whitespace and indentation included; add surrounding lines to make it unique.
An empty new_text deletes old_text.`
}

func (t editFile) Run(ctx context.Context, env *Env, args Args) (Result, error) {
	path, err := args.String("path")
	if err != nil {
		return fail(t.Name(), err)
	}
	oldText, err := args.String("old_text")
	if err != nil {
		return fail(t.Name(), err)
	}
	newText, err := args.String("new_text")
	if err != nil {
		return fail(t.Name(), err)
	}
	if oldText == "" {
		return fail(t.Name(), &ArgError{Arg: "old_text", Msg: "must not be empty: give the exact text to replace (write_file creates or replaces a whole file)"})
	}
	f, ok, res, err := readRegular(ctx, env, t.Name(), path, "write_file creates a new file", "edit_file changes a file")
	if !ok {
		return res, err
	}
	rel, data := f.rel, f.data
	why, err := env.workflowRefusal(ctx, t.Name(), f.abs, rel)
	if err != nil {
		return Result{}, err
	}
	if why != "" {
		return Result{Output: why, Target: rel}, nil
	}
	text := string(data)
	switch n := strings.Count(text, oldText); {
	case n == 0:
		return Result{Output: notFound(rel, text, oldText), Target: rel}, nil
	case n > 1:
		return Result{Output: fmt.Sprintf("edit_file: old_text occurs %d times in %s (at lines %s); include more of the surrounding lines so that it matches exactly once",
			n, rel, occurrenceLines(text, oldText)), Target: rel}, nil
	}
	if oldText == newText {
		return Result{Output: fmt.Sprintf("edit_file: old_text and new_text are the same; %s is unchanged", rel), Target: rel}, nil
	}
	at := strings.Index(text, oldText)
	line := strings.Count(text[:at], "\n") + 1
	edited := text[:at] + newText + text[at+len(oldText):]
	if err := os.WriteFile(f.abs, []byte(edited), f.mode.Perm()); err != nil {
		return fsFail(t.Name(), rel, "write", err)
	}
	return Result{
		Output: fmt.Sprintf("edited %s at line %d: replaced %d lines with %d", rel, line, countLines(oldText), countLines(newText)),
		Target: rel,
	}, nil
}

// notFound explains a missing old_text, with a hint when the likely cause
// is visible.
func notFound(rel, text, oldText string) string {
	msg := fmt.Sprintf("edit_file: old_text was not found in %s. Read the file again (read_file) and copy the text exactly: whitespace, indentation and line endings must match.", rel)
	switch {
	case strings.Contains(text, "\r\n") && !strings.Contains(oldText, "\r\n") && strings.Contains(text, strings.ReplaceAll(oldText, "\n", "\r\n")):
		msg += " The file uses CRLF line endings; old_text must too."
	case collapseSpace(oldText) != "" && strings.Contains(collapseSpace(text), collapseSpace(oldText)):
		msg += " The text is there with different whitespace."
	}
	return msg
}

// collapseSpace replaces every run of white space with one space.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// occurrenceLines lists the line numbers where the non-overlapping
// occurrences of sub start, naming at most maxListed of them.
func occurrenceLines(text, sub string) string {
	var lines []string
	line, from := 1, 0
	for {
		i := strings.Index(text[from:], sub)
		if i < 0 {
			break
		}
		line += strings.Count(text[from:from+i], "\n")
		if len(lines) == maxListed {
			lines = append(lines, "...")
			break
		}
		lines = append(lines, strconv.Itoa(line))
		line += strings.Count(sub, "\n")
		from += i + len(sub)
	}
	return strings.Join(lines, ", ")
}
