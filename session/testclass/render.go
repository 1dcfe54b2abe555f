package testclass

import (
	"fmt"
	"strings"

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
