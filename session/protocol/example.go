package protocol

import (
	"strings"
)

// examples show each standard tool in the form the prompt prefers: TOON,
// and the tool-call form for multi-line text.
var examples = map[string]string{
	"read_file": "tool: read_file\npath: cmd/app/main.go",
	"list_dir":  "tool: list_dir\npath: .",
	"write_file": "<tool_call>\n<function=write_file>\n<parameter=path>\nhello.txt\n</parameter>\n<parameter=content>\n" +
		"first line\nsecond \"quoted\" line\n</parameter>\n</function>\n</tool_call>",
	"edit_file": "<tool_call>\n<function=edit_file>\n<parameter=path>\nmain.go\n</parameter>\n<parameter=old_text>\n" +
		"\tfmt.Println(\"hi\")\n</parameter>\n<parameter=new_text>\n\tfmt.Println(\"hello\")\n</parameter>\n</function>\n</tool_call>",
	"search":     "tool: search\npattern: func main",
	"git_diff":   "tool: git_diff",
	"run_shell":  "tool: run_shell\ncommand: go test ./...",
	"file_issue": "tool: file_issue\ntitle: pager.Next skips the last page\nbody: Found while fixing the pager.",
	"done":       "tool: done\nsummary: Fixed the bug and added a test; go test ./... passes.",
	// The browser tools, offered with --browser.
	"browser_navigate":   "tool: browser_navigate\nurl: http://localhost:8000/",
	"browser_click":      "tool: browser_click\nselector: \"#submit\"",
	"browser_type":       "tool: browser_type\nselector: \"input[name=q]\"\ntext: hello",
	"browser_read":       "tool: browser_read\nselector: \"#result\"",
	"browser_screenshot": "tool: browser_screenshot",
	"browser_console":    "tool: browser_console",
}

// Example shows one action for tool in the preferred form. A tool without
// a prepared example gets the bare form.
func Example(tool string) string {
	if e, ok := examples[tool]; ok {
		return e
	}
	if tool == "" {
		return examples["read_file"]
	}
	return "tool: " + tool
}

// guessTool names the tool a malformed reply seems to want: the known tool
// it mentions first, or "" when it mentions none.
func guessTool(reply string, known []string) string {
	best, at := "", len(reply)+1
	for _, k := range known {
		if i := strings.Index(reply, k); i >= 0 && (i < at || i == at && len(k) > len(best)) {
			best, at = k, i
		}
	}
	return best
}
