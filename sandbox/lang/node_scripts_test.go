package lang

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestScriptPrograms: a runner named anywhere in a script's list of
// commands is one the script runs (camelcase's "xo && ava && tsd" runs
// ava).
func TestScriptPrograms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		script string
		want   []string
	}{
		{script: "vitest run", want: []string{"vitest"}},
		{script: "npx jest --ci", want: []string{"jest"}},
		{script: "xo && ava && tsd", want: []string{"xo", "ava", "tsd"}},
		{script: "eslint . || true; npx mocha test/", want: []string{"eslint", "true", "mocha"}},
		{script: "tap | tee out", want: []string{"tap", "tee"}},
		{script: "  ", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, scriptPrograms(tt.script))
		})
	}
	p := &Project{Ecosystems: []string{"node"}, known: true, scripts: map[string]string{"test": "xo && ava && tsd"}}
	assert.Equal(t, []string{"ava"}, p.runners())
	assert.Equal(t, AllowedSandboxed, CheckProject(TierTest, []string{"npx", "ava"}, p).Verdict)
}
