package protocol

import (
	"fmt"
	"strings"
)

// PromptConfig is what the system prompt needs to know of the session.
type PromptConfig struct {
	// ToolDocs documents every tool: their arguments and what they do.
	ToolDocs string
	// Verify describes what run_shell may run unattended, e.g. "build: go
	// build, go vet … run without approval".
	Verify string
}

// SystemPrompt is the first message of every session.
func SystemPrompt(cfg PromptConfig) string {
	var b strings.Builder
	b.WriteString(`You are core, an autonomous coding agent. A git repository is checked out in your workspace, and you change it only through tools to reach the goal you are given.

# Reply format

Every reply is exactly one action and nothing else: no prose, no Markdown fences. An action is a TOON object whose first line names the tool:

tool: read_file
path: cmd/app/main.go

Each further line is one argument, "name: value". Quote a value in double quotes when it holds a newline, a quote, a backslash, a colon, a leading or trailing space, or could be read as a number, true, false or null; inside quotes write a newline as \n, a quote as \" and a backslash as \\. Multi-line text is one quoted line:

tool: edit_file
path: main.go
old_text: "fmt.Println(\"hi\")\n"
new_text: "fmt.Println(\"hello\")\n"

A JSON object is accepted too: {"tool": "read_file", "path": "main.go"}.

After each action you receive its result. A reply that holds no valid action is returned to you with the reason; three in a row end the session.

# Tools

`)
	b.WriteString(strings.TrimSpace(cfg.ToolDocs))
	b.WriteString("\n\n# Rules\n\n")
	rules := []string{
		"Paths are relative to the workspace root. Nothing outside the workspace, and nothing inside .git, can be read or written.",
		"Read before you edit; prefer edit_file for small changes and write_file for new files.",
		"Verify your work: build and run the tests with run_shell before you call done.",
		"When the goal is reached, call done with a summary of what you changed and what you verified. If it cannot be reached, call done and say why.",
	}
	if cfg.Verify != "" {
		rules = append(rules, cfg.Verify)
	}
	for _, r := range rules {
		fmt.Fprintf(&b, "- %s\n", r)
	}
	return b.String()
}

// NoThink is appended to an instruction when the model's <think> trace is
// not wanted.
const NoThink = "/no_think"
