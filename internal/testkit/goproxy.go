package testkit

import (
	"archive/zip"
	"os"
	"path/filepath"
	"testing"
)

// GoProxy writes a GOPROXY directory serving example.com/greet v1.0.0
// (package greet, func Hello(name string) string) and returns its file://
// URL. Its zip is GoProxyZip under the directory, for a test to take away.
func GoProxy(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	v := filepath.Join(dir, "example.com", "greet", "@v")
	must(t, os.MkdirAll(v, 0o755))
	mod := "module example.com/greet\n\ngo 1.21\n"
	for name, body := range map[string]string{
		"list":        "v1.0.0\n",
		"v1.0.0.info": `{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}`,
		"v1.0.0.mod":  mod,
	} {
		must(t, os.WriteFile(filepath.Join(v, name), []byte(body), 0o644))
	}
	f, err := os.Create(filepath.Join(dir, GoProxyZip))
	must(t, err)
	zw := zip.NewWriter(f)
	for name, body := range map[string]string{
		"go.mod":   mod,
		"greet.go": "package greet\n\n// Hello greets.\nfunc Hello(name string) string { return \"hello, \" + name }\n",
	} {
		w, err := zw.Create("example.com/greet@v1.0.0/" + name)
		must(t, err)
		_, err = w.Write([]byte(body))
		must(t, err)
	}
	must(t, zw.Close())
	must(t, f.Close())
	return "file://" + dir
}

// GoProxyZip is the module's zip in a GoProxy directory.
const GoProxyZip = "example.com/greet/@v/v1.0.0.zip"

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
