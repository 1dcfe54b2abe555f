package protocol

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSystemPrompt(t *testing.T) {
	t.Parallel()
	p := SystemPrompt(PromptConfig{ToolDocs: "## read_file\nreads a file", Verify: "Unattended: go vet."})
	assert.Contains(t, p, "## read_file\nreads a file\n\n# Rules")
	assert.Contains(t, p, "- Unattended: go vet.\n")
	assert.NotContains(t, p, "# Repository instructions")
	assert.NotContains(t, p, "function calling")
	// The examples in the prompt must parse with the real parser.
	tests := []struct {
		example string
		tool    string
		args    map[string]any
	}{
		{ExampleTOON, "read_file", map[string]any{"path": "cmd/app/main.go"}},
		{ExampleMultiline, "edit_file", map[string]any{"path": "main.go",
			"old_text": "\tfmt.Println(\"hi\")", "new_text": "\tfmt.Println(\"hello, \\\"world\\\"\")\n\treturn nil"}},
		{ExampleJSON, "read_file", map[string]any{"path": "main.go"}},
	}
	for _, tt := range tests {
		assert.Contains(t, p, tt.example)
		a, err := Parse(tt.example, []string{"read_file", "edit_file"})
		require.NoError(t, err, tt.example)
		assert.Equal(t, tt.tool, a.Tool)
		assert.Equal(t, tt.args, a.Args)
	}
}

func TestSystemPromptNativeAndInstructions(t *testing.T) {
	t.Parallel()
	p := SystemPrompt(PromptConfig{ToolDocs: "x", Native: true, Instructions: "## AGENTS.md\n\nRun make test."})
	assert.Contains(t, p, "Call the tools through function calling, one call per reply.")
	assert.Contains(t, p, "# Repository instructions\n\n")
	assert.Contains(t, p, "## AGENTS.md\n\nRun make test.\n")
}

// TestExamplesParse holds every prepared example to the parser: the
// correction shows them, so they must be right.
func TestExamplesParse(t *testing.T) {
	t.Parallel()
	for tool, ex := range examples {
		t.Run(tool, func(t *testing.T) {
			t.Parallel()
			a, err := Parse(ex, known)
			if tool == "file_issue" || strings.HasPrefix(tool, "browser_") {
				a, err = Parse(ex, append([]string{tool}, known...))
			}
			require.NoError(t, err)
			assert.Equal(t, tool, a.Tool)
		})
	}
}

func TestSystemPromptRules(t *testing.T) {
	t.Parallel()
	p := SystemPrompt(PromptConfig{ToolDocs: "read_file", Verify: "run_shell may run go test", Rules: []string{"Change no file."}})
	assert.Contains(t, p, "- Change no file.\n")
	assert.NotContains(t, p, "write_file for new files", "the given rules replace the default ones")
	assert.NotContains(t, p, "run_shell may run go test", "and the verify rule with them")
}
