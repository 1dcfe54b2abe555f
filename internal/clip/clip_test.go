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
