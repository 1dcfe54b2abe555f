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
	// Native says the tools are also offered as native function
	// definitions (--tool-calls native).
	Native bool
	// Instructions are the repository's own instructions for agents
	// (AGENTS.md), already scrubbed and capped; empty for none.
	Instructions string
	// Rules, when set, replace the rules of a run that changes code (and
	// Verify with them): a review's.
	Rules []string
}

// ExampleTOON, ExampleMultiline and ExampleJSON are the reply forms the
// prompt shows; the tests parse each.
const (
	ExampleTOON = "tool: read_file\npath: cmd/app/main.go"

	ExampleMultiline = "<tool_call>\n<function=edit_file>\n<parameter=path>\nmain.go\n</parameter>\n" +
		"<parameter=old_text>\n\tfmt.Println(\"hi\")\n</parameter>\n" +
		"<parameter=new_text>\n\tfmt.Println(\"hello, \\\"world\\\"\")\n\treturn nil\n</parameter>\n" +
		"</function>\n</tool_call>"

	ExampleJSON = `{"tool": "read_file", "path": "main.go"}`
)

// SystemPrompt is the first message of every session.
func SystemPrompt(cfg PromptConfig) string {
	var b strings.Builder
	b.WriteString(`You are core, an autonomous coding agent. A git repository is checked out in your workspace, and you change it only through tools to reach the goal you are given.

# Reply format

`)
	if cfg.Native {
		b.WriteString("Call the tools through function calling, one call per reply. If you write an action as text instead, use one of the forms below.\n\n")
	}
	b.WriteString(`Every reply is exactly one action and nothing else: one action runs per turn. An action is a TOON object whose first line names the tool:

` + ExampleTOON + `

Each further line is one argument, "name: value". Quote a value in double quotes when it holds a quote, a backslash, a colon, a leading or trailing space, begins with # or -, or could be read as a number, true, false or null; inside quotes write a quote as \" and a backslash as \\. A line that begins with # is a comment.

For multi-line text (content, old_text, new_text) use the tool-call form instead. Each value is raw text between its tags, exactly as it is in the file: nothing is escaped, tabs, quotes and backslashes stay as they are. The newline right after an opening tag and the one right before a closing tag are not part of the value, so content that ends with a newline (as files do) has an empty line before </parameter>:

` + ExampleMultiline + `

Every tool can be called in this form. A JSON object is accepted too: ` + ExampleJSON + `.

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
	if cfg.Rules != nil {
		rules = cfg.Rules
	}
	for _, r := range rules {
		fmt.Fprintf(&b, "- %s\n", r)
	}
	if s := strings.TrimSpace(cfg.Instructions); s != "" {
		b.WriteString("\n# Repository instructions\n\nThe repository's maintainers wrote these for agents working on it. Follow them where they do not conflict with the rules above.\n\n")
		b.WriteString(s)
		b.WriteString("\n")
	}
	return b.String()
}

// NoThink is appended to an instruction when the model's <think> trace is
// not wanted.
const NoThink = "/no_think"
