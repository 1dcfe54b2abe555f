package checks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRunRule(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	output := func(o checkOutputIn) *checkOutputIn { return &o }
	note := annotationIn{Path: "a.go", StartLine: 2, EndLine: 2, AnnotationLevel: "warning", Message: "m"}
	tests := []struct {
		name string
		in   runInput
		want string // a part of GitHub's message, "" for none
	}{
		{name: "nothing asked", in: runInput{}},
		{name: "completed with a conclusion", in: runInput{Status: str("completed"), Conclusion: str("success")}},
		{name: "a conclusion alone completes", in: runInput{Conclusion: str("failure")}},
		{name: "unknown status", in: runInput{Status: str("done")}, want: `Status "done" is not one of`},
		{name: "unknown conclusion", in: runInput{Conclusion: str("passed")}, want: `Conclusion "passed" is not one of`},
		{name: "completed without a conclusion", in: runInput{Status: str("completed")}, want: "Conclusion can't be blank"},
		{name: "in progress with a conclusion", in: runInput{Status: str("in_progress"), Conclusion: str("success")}, want: "Status must be completed"},
		{name: "action required without details", in: runInput{Conclusion: str("action_required")}, want: "Details url can't be blank"},
		{name: "bad time", in: runInput{StartedAt: str("yesterday")}, want: `Time "yesterday" is not an ISO 8601 timestamp`},
		{name: "output without a title", in: runInput{Output: output(checkOutputIn{Summary: str("s")})}, want: "Output title can't be blank"},
		{name: "summary too long", in: runInput{Output: output(checkOutputIn{Title: str("t"), Summary: str(strings.Repeat("é", maxCheckText+1))})}, want: "Output summary is too long"},
		{name: "too many annotations", in: runInput{Output: output(checkOutputIn{Title: str("t"), Summary: str("s"), Annotations: make([]annotationIn, maxAnnotationsPerRequest+1)})}, want: "Only 50 annotations"},
		{name: "annotation ends before it starts", in: runInput{Output: output(checkOutputIn{Title: str("t"), Summary: str("s"), Annotations: []annotationIn{{Path: "a.go", StartLine: 3, EndLine: 2, AnnotationLevel: "notice", Message: "m"}}})}, want: "Annotation 0 ends before it starts"},
		{name: "a good annotation", in: runInput{Output: output(checkOutputIn{Title: str("t"), Summary: str("s"), Annotations: []annotationIn{note}})}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := runRule(&tt.in)
			if tt.want == "" {
				assert.Empty(t, got)
				return
			}
			assert.Contains(t, got, tt.want)
		})
	}
}
