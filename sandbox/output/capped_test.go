package output

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCapped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		limit    int
		writes   []string
		want     string
		wantCut  int64
		contains []string
	}{
		{name: "under the limit", limit: 10, writes: []string{"abc", "def"}, want: "abcdef"},
		{name: "exactly the limit", limit: 6, writes: []string{"abcdef"}, want: "abcdef"},
		{name: "one big write", limit: 6, writes: []string{"0123456789"}, wantCut: 4, contains: []string{"012", "789", "[4 bytes of output cut]"}},
		{name: "many small writes", limit: 6, writes: strings.Split("0123456789", ""), wantCut: 4, contains: []string{"012\n", "\n789"}},
		{name: "wrapping tail", limit: 8, writes: []string{"aaaa", "bb", "cc", "dd", "ee"}, wantCut: 4, contains: []string{"aaaa\n", "\nddee"}},
		{name: "invalid utf-8", limit: 100, writes: []string{"ok \xff\xfe"}, want: "ok \uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := NewCapped(tt.limit)
			for _, w := range tt.writes {
				n, err := c.Write([]byte(w))
				assert.NoError(t, err)
				assert.Equal(t, len(w), n)
			}
			got, cut := c.String()
			assert.Equal(t, tt.wantCut, cut)
			if tt.want != "" {
				assert.Equal(t, tt.want, got)
			}
			for _, s := range tt.contains {
				assert.Contains(t, got, s)
			}
		})
	}
}
