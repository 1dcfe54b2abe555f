package protocol

import (
	"strings"
	"testing"
)

// BenchmarkParse parses a write_file action holding a 200-line file in
// each form the prompt shows.
func BenchmarkParse(b *testing.B) {
	var file strings.Builder
	for i := range 200 {
		file.WriteString("\tfmt.Println(\"line\", " + strings.Repeat("x", i%40) + ") // a \\ backslash\n")
	}
	content := file.String()
	quoted := strings.NewReplacer("\\", "\\\\", "\"", "\\\"", "\n", "\\n", "\t", "\\t").Replace(content)
	forms := map[string]string{
		"toon":     "tool: write_file\npath: main.go\ncontent: \"" + quoted + "\"",
		"qwen-xml": "<tool_call>\n<function=write_file>\n<parameter=path>\nmain.go\n</parameter>\n<parameter=content>\n" + content + "\n</parameter>\n</function>\n</tool_call>",
		"hermes":   "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"main.go\", \"content\": \"" + quoted + "\"}}\n</tool_call>",
	}
	for name, reply := range forms {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(reply)))
			for b.Loop() {
				a, err := Parse(reply, known)
				if err != nil || a.Args["content"] != content {
					b.Fatalf("%v %q", err, a.Args["content"])
				}
			}
		})
	}
}
