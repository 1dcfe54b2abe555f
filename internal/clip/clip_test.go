package clip

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    string
		n    int
		want string
	}{
		{"short enough", "go test ./...", 20, "go test ./..."},
		{"white space flattened", "  one\n\ttwo  \r\nthree ", 20, "one two three"},
		{"exactly n runes", "abcde", 5, "abcde"},
		{"one rune over", "abcdef", 5, "abcd…"},
		{"cut by runes, not bytes", "ééééééé", 4, "ééé…"},
		{"flattened before it is cut", "a\n\n\n\nb c d", 4, "a b…"},
		{"empty", " \n ", 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Line(tt.s, tt.n)
			assert.Equal(t, tt.want, got)
			assert.LessOrEqual(t, len([]rune(got)), tt.n)
		})
	}
}

func TestHash(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "0123456789ab", Hash("0123456789abcdef0123456789abcdef01234567"))
	assert.Equal(t, "0123456789ab", Hash("0123456789ab"))
	assert.Equal(t, "abc", Hash("abc"))
	assert.Empty(t, Hash(""))
}

func TestSubject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, s       string
		n             int
		subject, rest string
	}{
		{"fits", "Fix the parser", 72, "Fix the parser", ""},
		{"first sentence", "Fix the parser. It now accepts trailing commas in arrays and objects alike", 40, "Fix the parser.", "It now accepts trailing commas in arrays and objects alike"},
		{"cut at a word", "Make the parser accept trailing commas in nested arrays and objects", 40, "Make the parser accept trailing commas…", "…in nested arrays and objects"},
		{"a sentence too long is cut at a word", "Make the parser accept trailing commas everywhere. Then more", 30, "Make the parser accept…", "…trailing commas everywhere. Then more"},
		{"one long word", "abcdefghijklmnopqrstuvwxyz", 10, "abcdefghi…", "…jklmnopqrstuvwxyz"},
		{"white space flattened", "Fix\tthe   parser", 72, "Fix the parser", ""},
		{"a version's dot is no sentence", "Bump example.com/mod to v1.2.3 and regenerate everything that depends on it", 30, "Bump example.com/mod to…", "…v1.2.3 and regenerate everything that depends on it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			subject, rest := Subject(tt.s, tt.n)
			assert.Equal(t, tt.subject, subject)
			assert.Equal(t, tt.rest, rest)
			assert.LessOrEqual(t, len([]rune(subject)), tt.n)
		})
	}
}

func TestFence(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, s, fence string
		ticks          int
	}{
		{"no backticks", "a", "```", 0},
		{"a span", "a `b` c", "```", 1},
		{"a fence inside", "```\nx\n```", "````", 3},
		{"the longest run counts", "`` ````` `", "``````", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.ticks, Backticks(tc.s))
			assert.Equal(t, tc.fence, Fence(tc.s))
		})
	}
}
