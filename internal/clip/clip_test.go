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
