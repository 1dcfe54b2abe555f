package gocache

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSummedModules(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{
		"go.sum": []byte("example.com/greet v1.0.0 h1:x=\n" +
			"example.com/greet v1.0.0/go.mod h1:y=\n" +
			"example.com/only v1.2.0/go.mod h1:z=\n" +
			"github.com/Upper/Case v0.1.0 h1:u=\n" +
			"../evil v1.0.0 h1:e=\n" +
			"/abs v1.0.0 h1:e=\n" +
			"example.com/a/../b v1.0.0 h1:e=\n" +
			"example.com/bad notaversion h1:e=\n" +
			"example.com/short v1.0.0\n"),
		"sub/go.sum":  []byte("example.com/sub v0.0.1 h1:s=\n"),
		"go.work.sum": []byte("example.com/work v1.0.0 h1:w=\n"),
		"go.mod":      []byte("example.com/notasum v1.0.0 h1:n=\n"),
	}
	assert.Equal(t, []summedModule{
		{path: "example.com/greet", version: "v1.0.0", full: true},
		{path: "example.com/only", version: "v1.2.0"},
		{path: "example.com/sub", version: "v0.0.1", full: true},
		{path: "example.com/work", version: "v1.0.0", full: true},
		{path: "github.com/!upper/!case", version: "v0.1.0", full: true},
	}, summedModules(files))
}
