package toon_test

import (
	"fmt"

	"github.com/coreagent/core/toon"
)

func ExampleUnmarshal() {
	var act struct {
		Tool      string `toon:"tool"`
		Path      string `toon:"path"`
		StartLine int    `toon:"start_line"`
	}
	err := toon.Unmarshal([]byte("tool: read_file\npath: cmd/core/main.go\nstart_line: 12"), &act)
	fmt.Println(act.Tool, act.Path, act.StartLine, err)
	// Output: read_file cmd/core/main.go 12 <nil>
}

func ExampleMarshal() {
	type entry struct {
		Name string `json:"name"`
		Type string `json:"type"`
		Size int    `json:"size"`
	}
	out, _ := toon.Marshal(map[string]any{
		"path":    "cmd/core",
		"entries": []entry{{"main.go", "file", 2048}, {"run.go", "file", 512}},
	})
	fmt.Println(string(out))
	// Output:
	// entries[2]{name,type,size}:
	//   main.go,file,2048
	//   run.go,file,512
	// path: cmd/core
}

func ExampleDecode() {
	v, err := toon.Decode([]byte("items[3]: a,b"))
	fmt.Println(v, err)
	// Output: <nil> line 1: array declared 3 items, found 2
}
