package gocache

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestShareable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, dir string
		refused   string // what the error says; "" when the sandbox may see dir
	}{
		{name: "the user's module cache", dir: "/home/u/go/pkg/mod"},
		{name: "the user's build cache", dir: "/home/u/.cache/go-build"},
		{name: "elsewhere", dir: "/var/cache/go"},
		{name: "unclean but inside", dir: "/home/u/go/../go/pkg/mod"},
		{name: "right under the home", dir: "/home/u/cache"},
		{name: "right under core's state directory", dir: "/state/cache"},
		{name: "beside the home", dir: "/home/u2"},
		{name: "the home itself", dir: "/home/u", refused: "it holds /home/u"},
		{name: "the home's parent", dir: "/home", refused: "it holds /home/u"},
		{name: "the home with a slash", dir: "/home/u/", refused: "it holds /home/u"},
		{name: "core's state directory", dir: "/state", refused: "it holds /state"},
		{name: "above core's state directory", dir: "/", refused: "it holds"},
		{name: "the root, unclean", dir: "/home/..", refused: "it holds"},
		{name: "relative", dir: "go/pkg/mod", refused: "not an absolute path"},
		{name: "empty", dir: "", refused: "not an absolute path"},
		{name: "off", dir: "off", refused: "not an absolute path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Shareable(tt.dir, "/home/u", "/state")
			if tt.refused == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, tt.refused)
			}
		})
	}
}
