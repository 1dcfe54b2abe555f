package toon

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// goSource returns a deterministic Go file of n lines.
func goSource(n int) string {
	var b strings.Builder
	b.WriteString("package demo\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n")
	for i := 6; i < n; {
		switch {
		case n-i >= 6:
			fmt.Fprintf(&b, "\n// F%d joins its \"inputs\" with a \\t separator.\nfunc F%d(xs []string) string {\n\ts := strings.Join(xs, \"\\t\")\n\treturn fmt.Sprintf(\"%%d: %%s\", %d, s)\n}\n", i, i, i)
			i += 6
		default:
			b.WriteString("// end\n")
			i++
		}
	}
	return b.String()
}

type writeFileAction struct {
	Tool    string `toon:"tool" json:"tool"`
	Path    string `toon:"path" json:"path"`
	Content string `toon:"content" json:"content"`
}

// BenchmarkDecodeAction decodes a model reply carrying a write_file action
// whose content is a 200-line Go file in one quoted string.
func BenchmarkDecodeAction(b *testing.B) {
	src := goSource(200)
	if got := strings.Count(src, "\n"); got != 200 {
		b.Fatalf("source has %d lines, want 200", got)
	}
	act := writeFileAction{Tool: "write_file", Path: "internal/demo/demo.go", Content: src}
	data, err := Marshal(act)
	if err != nil {
		b.Fatal(err)
	}
	jsonData, err := json.Marshal(act)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var got writeFileAction
		if err := Unmarshal(data, &got); err != nil {
			b.Fatal(err)
		}
		if len(got.Content) != len(src) {
			b.Fatal("content mismatch")
		}
	}
	// Reported after the loop: b.Loop resets the timer, which drops metrics.
	b.ReportMetric(float64(len(data)), "toon-bytes")
	b.ReportMetric(float64(len(jsonData)), "json-bytes")
}

// BenchmarkEncodeListing encodes a 200-entry directory listing, which takes
// the tabular form.
func BenchmarkEncodeListing(b *testing.B) {
	type listing struct {
		Path    string     `json:"path"`
		Entries []dirEntry `json:"entries"`
	}
	v := listing{Path: "internal/workspace"}
	for i := range 200 {
		e := dirEntry{Name: fmt.Sprintf("file_%03d.go", i), Type: "file", Size: int64(100 + i*37)}
		if i%10 == 0 {
			e = dirEntry{Name: fmt.Sprintf("pkg%02d", i/10), Type: "dir", Size: 4096}
		}
		v.Entries = append(v.Entries, e)
	}
	data, err := Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	if !strings.Contains(string(data), "entries[200]{name,type,size}:\n") {
		b.Fatalf("listing is not tabular:\n%.200s", data)
	}
	jsonData, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(data)), "toon-bytes")
	b.ReportMetric(float64(len(jsonData)), "json-bytes")
}
