package deps

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLockPackages: how many packages each lockfile fetches, for the
// progress lines.
func TestLockPackages(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 2, LockPackages("node", []byte(`{"lockfileVersion":3,"packages":{"":{},"node_modules/a":{},"node_modules/a/node_modules/b":{},"lib":{}}}`)))
	assert.Equal(t, 1, LockPackages("node", []byte(`{"lockfileVersion":1,"dependencies":{"a":{}}}`)))
	assert.Equal(t, 0, LockPackages("node", []byte(`not json`)))
	assert.Equal(t, 1, LockPackages("rust", []byte("[[package]]\nname = \"app\"\n\n[[package]]\nname = \"greet\"\nsource = \"registry+x\"\n")))
	assert.Equal(t, 2, LockPackages("python", []byte("# pins\na==1\n\nb==2\n-c other.txt\n")))
	assert.Equal(t, "1 Node.js package", PackagesWord("node", 1))
}

// TestSeeded: a changed manifest resolves from what the run resolved:
// the lockfile beside it (npm), cargo update --workspace on it (cargo),
// pins as constraints (pip); the plan it came from is unchanged.
func TestSeeded(t *testing.T) {
	t.Parallel()
	lock := []byte("lock")
	tests := []struct {
		eco, file string
		argv      []string
		want      []string
	}{
		{eco: "node", file: "package-lock.json", argv: []string{"npm", "install", "--package-lock-only"}, want: []string{"npm", "install", "--package-lock-only"}},
		{eco: "rust", file: "Cargo.lock", argv: []string{"cargo", "generate-lockfile"}, want: []string{"cargo", "update", "--workspace"}},
		{eco: "python", file: constraintsFile, argv: []string{"python3", "-m", "pip", "install", "-r", requirementsFile},
			want: []string{"python3", "-m", "pip", "install", "-r", requirementsFile, "-c", constraintsFile}},
	}
	for _, tt := range tests {
		plan := Plan{Eco: tt.eco, Argv: tt.argv, Files: map[string][]byte{"manifest": []byte("m")}}
		got := Seeded(plan, lock)
		assert.Equal(t, tt.want, got.Argv, tt.eco)
		assert.Equal(t, lock, got.Files[tt.file], tt.eco)
		assert.Len(t, plan.Files, 1, "%s: the unseeded plan keeps its files", tt.eco)
		assert.Equal(t, tt.argv, plan.Argv, tt.eco)
	}
}

// TestGoSumModules: the modules whose zips go.sum names, once each,
// across the go.sum files of a go.work.
func TestGoSumModules(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{
		"go.mod":     []byte("module m\n"),
		"go.sum":     []byte("example.com/a v1.0.0 h1:x=\nexample.com/a v1.0.0/go.mod h1:y=\nexample.com/b v1.2.0/go.mod h1:z=\n"),
		"sub/go.sum": []byte("example.com/a v1.0.0 h1:x=\nexample.com/c v0.1.0 h1:w=\n\n"),
	}
	assert.Equal(t, 2, GoSumModules(files), "a and c: b's go.mod alone is no download")
	assert.Equal(t, 0, GoSumModules(map[string][]byte{"go.mod": []byte("module m\n")}))
}
