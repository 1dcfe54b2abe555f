package review

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/coreagent/core/session/testclass"
)

func TestReportLine(t *testing.T) {
	t.Parallel()
	tests := &testclass.Classification{Files: []testclass.Classified{{Path: "a_test.go", Class: testclass.TestsChange}, {Path: "b_test.go", Class: testclass.NotTesting}}}
	for _, tc := range []struct {
		name string
		r    Report
		want string
	}{
		{name: "nothing", r: Report{}, want: "review: no finding"},
		{name: "both", r: Report{Findings: []Finding{{Confirmed: true}, {}, {}}, Tests: tests},
			want: "review: 1 confirmed, 2 unconfirmed; the pull request's tests: 1 tests the change, 1 does not test the change"},
		{name: "confirmed only", r: Report{Findings: []Finding{{Confirmed: true}}}, want: "review: 1 confirmed"},
		{name: "unconfirmed only", r: Report{Findings: []Finding{{}}, Tests: &testclass.Classification{}},
			want: "review: 1 unconfirmed; the pull request's tests: no test file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, tc.r.Line())
		})
	}
}

// TestWriteText: confirmed findings first, each with where, what and the
// harness's runs; nothing a report holds reaches the terminal raw.
func TestWriteText(t *testing.T) {
	t.Parallel()
	r := Report{Findings: []Finding{
		{File: "x.go", Line: 3, Claim: "maybe\nracy", Why: "no reproduction"},
		{File: "calc.go", Line: 6, Claim: "Add subtracts\x1b[2J", Confirmed: true,
			Reproduction: &Reproduction{Command: []string{"go", "test", "-run", "TestAdd"}, Head: &Ran{Exit: 1}, Base: &Ran{Exit: 0, Passed: true}}},
	}, Tests: &testclass.Classification{Files: []testclass.Classified{{Path: "calc_test.go", Commands: [][]string{{"go", "test"}},
		Base: testclass.Side{Exit: 1}, Head: testclass.Side{Passed: true}, Class: testclass.TestsChange}}}}
	var b strings.Builder
	r.WriteText(&b)
	out := b.String()
	assert.NotContains(t, out, "\x1b")
	confirmed, unconfirmed := strings.Index(out, "  confirmed calc.go:6: Add subtracts"), strings.Index(out, "  unconfirmed x.go:3: maybe racy")
	assert.True(t, confirmed > 0 && unconfirmed > confirmed, "confirmed first:\n%s", out)
	assert.Contains(t, out, "    reproduction: go test -run TestAdd (head: exit 1; base: exit 0)\n")
	assert.Contains(t, out, "    no reproduction\n")
	assert.Contains(t, out, "the pull request's tests:\n  TEST FILE")
	assert.Regexp(t, `(?m)^  calc_test.go +failed, exit 1`, out)
}
