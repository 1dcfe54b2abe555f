package protocol

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSystemPrompt(t *testing.T) {
	t.Parallel()
	p := SystemPrompt(PromptConfig{ToolDocs: "## read_file\nreads a file", Verify: "Unattended: go vet."})
	assert.Contains(t, p, "## read_file\nreads a file\n\n# Rules")
	assert.Contains(t, p, "- Unattended: go vet.\n")
	// The examples in the prompt must parse with the real parser.
	for _, example := range []string{
		"tool: read_file\npath: cmd/app/main.go",
		"tool: edit_file\npath: main.go\nold_text: \"fmt.Println(\\\"hi\\\")\\n\"\nnew_text: \"fmt.Println(\\\"hello\\\")\\n\"",
		`{"tool": "read_file", "path": "main.go"}`,
	} {
		assert.Contains(t, p, example)
		a, err := Parse(example, []string{"read_file", "edit_file"})
		require.NoError(t, err, example)
		if a.Tool == "edit_file" {
			assert.Equal(t, "fmt.Println(\"hi\")\n", a.Args["old_text"])
		}
	}
}
