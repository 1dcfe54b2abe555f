package testclass

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/coreagent/core/session/contract"
)

// classWords are the classes as the review's table says them.
var classWords = map[Class]string{
	TestsChange: "**tests the change**",
	FailsOnHead: "**fails on the head**",
	TimedOut:    "**timed out on the head**",
	NotTesting:  "does not test the change",
	NewNoBase:   "new: cannot run on the base",
	HeadOnly:    "passes on the head only",
	CouldNotRun: "could not run",
	Refused:     "not run",
}

// Markdown is the classification as the review prints it, whatever the
// model says: a table of the test files, each cell escaped as the
// contract's (contract.MarkdownCell), and a line for the files left out.
func Markdown(c Classification) string {
	var b strings.Builder
	b.WriteString("### The pull request's tests\n\n")
	if c.Error != "" {
		fmt.Fprintf(&b, "The harness could not classify the pull request's tests: %s\n", contract.MarkdownCell(c.Error))
		if len(c.Files) == 0 {
			return b.String()
		}
		b.WriteString("\nWhat it classified before that:\n\n")
	}
	if len(c.Files) == 0 && c.LeftOut == 0 {
		b.WriteString("The pull request adds or changes no test file.\n")
		return b.String()
	}
	b.WriteString("| test file | command | base | head | verdict |\n|---|---|---|---|---|\n")
	for _, f := range c.Files {
		command := "—"
		if len(f.Commands) > 0 {
			command = "`" + contract.MarkdownCell(commandWords(f.Commands)) + "`"
		}
		base, head := sideCell(f.Base, f.Commands), sideCell(f.Head, f.Commands)
		if f.New && len(f.Commands) > 0 {
			base = "new: " + base
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s: %s |\n", contract.MarkdownCell(f.Path), command,
			contract.MarkdownCell(base), contract.MarkdownCell(head), classWords[f.Class], contract.MarkdownCell(f.Reason))
	}
	if c.LeftOut > 0 {
		fmt.Fprintf(&b, "\n%d more test files were left out: the harness runs at most %d.\n", c.LeftOut, MaxFiles)
	}
	b.WriteString("\nThe harness ran each file's tests itself, confined, on the head and on the base with the head's version of the file in place.\n")
	return b.String()
}

// sideCell is one side's outcome in a few words.
func sideCell(s Side, command [][]string) string {
	switch {
	case len(command) == 0:
		return "—"
	case s.Error != "":
		return "could not run"
	case s.Passed:
		return fmt.Sprintf("passed (%.1fs)", s.Seconds)
	case s.TimedOut:
		return fmt.Sprintf("timed out (%.0fs)", s.Seconds)
	case s.Cause != "":
		return fmt.Sprintf("exit %d: %s", s.Exit, s.Cause)
	}
	return fmt.Sprintf("failed, exit %d (%.1fs)", s.Exit, s.Seconds)
}

// commandWords are the commands as people write them, joined by "; ".
func commandWords(cmds [][]string) string {
	words := make([]string, len(cmds))
	for i, argv := range cmds {
		words[i] = strings.Join(argv, " ")
	}
	return strings.Join(words, "; ")
}

// summaryWords are the classes as a summary line counts them.
var summaryWords = map[Class]string{
	TestsChange: "tests the change",
	FailsOnHead: "fails on the head",
	TimedOut:    "timed out on the head",
	NotTesting:  "does not test the change",
	NewNoBase:   "new, cannot run on the base",
	HeadOnly:    "passes on the head only",
	CouldNotRun: "could not run",
	Refused:     "not run",
}

// classOrder is the order the summary counts the classes in.
var classOrder = []Class{TestsChange, FailsOnHead, TimedOut, NotTesting, NewNoBase, HeadOnly, CouldNotRun, Refused}

// Summary counts the files of c by class, in a few words for a line of
// text: "1 tests the change, 1 does not test the change"; "no test file"
// when the pull request changes none, and the error when there is one.
func Summary(c Classification) string {
	var parts []string
	for _, class := range classOrder {
		n := 0
		for _, f := range c.Files {
			if f.Class == class {
				n++
			}
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, summaryWords[class]))
		}
	}
	if c.LeftOut > 0 {
		parts = append(parts, fmt.Sprintf("%d left out", c.LeftOut))
	}
	if c.Error != "" {
		parts = append(parts, "not classified: "+oneLine(c.Error))
	}
	if len(parts) == 0 {
		return "no test file"
	}
	return strings.Join(parts, ", ")
}

// Text is the classification as a plain text table, for a terminal: a
// line a file with its verdict, its sides and its reason.
func Text(c Classification) string {
	var b strings.Builder
	if len(c.Files) == 0 && c.LeftOut == 0 && c.Error == "" {
		return "The pull request adds or changes no test file.\n"
	}
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	if len(c.Files) > 0 {
		fmt.Fprintln(tw, "TEST FILE\tBASE\tHEAD\tVERDICT")
	}
	for _, f := range c.Files {
		base, head := sideCell(f.Base, f.Commands), sideCell(f.Head, f.Commands)
		if f.New && len(f.Commands) > 0 {
			base = "new: " + base
		}
		verdict := summaryWords[f.Class]
		if f.Reason != "" {
			verdict += ": " + oneLine(f.Reason)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", oneLine(f.Path), base, head, verdict)
	}
	tw.Flush()
	if c.LeftOut > 0 {
		fmt.Fprintf(&b, "%d more test files were left out: the harness runs at most %d.\n", c.LeftOut, MaxFiles)
	}
	if c.Error != "" {
		fmt.Fprintf(&b, "The harness could not classify the pull request's tests: %s\n", oneLine(c.Error))
	}
	return b.String()
}

// oneLine is s with its control characters (a newline, a terminal's
// escape) made spaces, for a line of a terminal's table.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}
