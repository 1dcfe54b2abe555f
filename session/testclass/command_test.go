package testclass

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/coreagent/core/internal/testkit"
)

func TestCommands(t *testing.T) {
	t.Parallel()
	jest := t.TempDir()
	testkit.WriteFiles(t, jest, map[string]string{"package.json": `{"scripts": {"test": "eslint . && jest --ci"}}`})
	plain := t.TempDir()
	testkit.WriteFiles(t, plain, map[string]string{"package.json": `{"scripts": {"test": "node --test"}}`})
	goSrc := "package p\nimport \"testing\"\nfunc TestA(t *testing.T) {}\nfunc TestB(t *testing.T) {}\n"
	tests := []struct {
		name       string
		f          testFile
		src, head  string
		want       [][]string
		note       string
		unrunnable string
	}{
		{name: "a Go file's test functions in one go test", f: testFile{path: "pkg/a_test.go", ecosystem: Go}, src: goSrc,
			want: [][]string{{"go", "test", "./pkg", "-run", "^(TestA|TestB)$"}}},
		{name: "a Go file at the top", f: testFile{path: "a_test.go", ecosystem: Go}, src: goSrc,
			want: [][]string{{"go", "test", ".", "-run", "^(TestA|TestB)$"}}},
		{name: "a Go file without tests", f: testFile{path: "a_test.go", ecosystem: Go}, src: "package p\n",
			want: [][]string{{"go", "test", "."}}, note: "the package's tests ran"},
		{name: "pytest on the file", f: testFile{path: "t/test_a.py", ecosystem: Python}, want: [][]string{{"python3", "-m", "pytest", "-q", "t/test_a.py"}}},
		{name: "the runner a script names", f: testFile{path: "src/a.test.ts", ecosystem: Node}, head: jest, want: [][]string{{"npx", "jest", "src/a.test.ts"}}},
		{name: "node --test without one", f: testFile{path: "test/a.js", ecosystem: Node}, head: plain, want: [][]string{{"node", "--test", "test/a.js"}}},
		{name: "TypeScript without a runner", f: testFile{path: "test/a.test.ts", ecosystem: Node}, head: plain, unrunnable: "a TypeScript test needs a runner"},
		{name: "a Rust integration test", f: testFile{path: "tests/api.rs", ecosystem: Rust}, want: [][]string{{"cargo", "test", "--test", "api"}}},
		{name: "a Rust source file's tests", f: testFile{path: "src/lib.rs", ecosystem: Rust}, want: [][]string{{"cargo", "test"}}, note: "the crate's tests ran, all of them"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			head := tt.head
			if head == "" {
				head = t.TempDir()
			}
			cmds, note, unrunnable := commands(tt.f, tt.src, head)
			assert.Equal(t, tt.want, cmds)
			if tt.note == "" {
				assert.Empty(t, note)
			} else {
				assert.Contains(t, note, tt.note)
			}
			if tt.unrunnable == "" {
				assert.Empty(t, unrunnable)
			} else {
				assert.Contains(t, unrunnable, tt.unrunnable)
			}
		})
	}
}
