package gocache

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A package pattern is shared only when it is a plain import path: the
// letters and digits at both ends of their ranges pass, the characters
// just outside them do not.
func TestCompilesOnlyImportPaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		want    bool
	}{
		{pattern: "example.com/a/z", want: true},
		{pattern: "example.com/A/Z", want: true},
		{pattern: "example.com/v0/v9", want: true},
		{pattern: "example.com/x_y-z.v2/...", want: true},
		{pattern: "example.com/x@latest"},      // '@' lies just below 'A'
		{pattern: "example.com/x:y"},           // ':' just above '9'
		{pattern: "example.com/x[y]"},          // '[' just above 'Z'
		{pattern: "example.com/x`y"},           // '`' just below 'a'
		{pattern: "example.com/x{y}"},          // '{' just above 'z'
		{pattern: "example.com/x y"},           // a blank
		{pattern: "example.com/../x"},          // an element ".."
		{pattern: "example.com/x\x00"},         // a control character
		{pattern: "example.com/\u00e9t\u00e9"}, // a letter outside ASCII
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, CompilesOnly([]string{"go", "build", tt.pattern}))
			assert.Equal(t, tt.want, isImportPath(tt.pattern))
		})
	}
}
