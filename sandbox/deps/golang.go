package deps

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/version"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"

	"github.com/coreagent/core/sandbox/manifest"
)

// Go's dependency step is the module download, run by sandbox
// (sandbox/download.go): what it reads of the workspace, and whether the
// module cache already holds everything it would fetch.

// ErrNoModule says that the workspace holds neither go.mod nor go.work.
var ErrNoModule = errors.New("the workspace holds no go.mod or go.work")

// IsNoModule reports whether err is, or wraps, ErrNoModule.
func IsNoModule(err error) bool { return errors.Is(err, ErrNoModule) }

// GoModuleFiles reads, with manifest.ReadWorkspaceFile, the files the
// module download needs: go.mod and go.sum, or go.work, go.work.sum and the
// go.mod and go.sum of every module the go.work uses. Keys are
// slash-separated paths relative to the workspace.
func GoModuleFiles(ws string) (map[string][]byte, error) {
	files := map[string][]byte{}
	read := func(name string, required bool) error {
		b, err := manifest.ReadWorkspaceFile(ws, name, manifest.MaxModFileSize)
		switch {
		case err == nil:
			files[name] = b
			return nil
		case errors.Is(err, fs.ErrNotExist) && !required:
			return nil
		}
		return err
	}
	work, err := manifest.ReadWorkspaceFile(ws, "go.work", manifest.MaxModFileSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := read("go.mod", true); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, ErrNoModule
			}
			return nil, err
		}
		return files, read("go.sum", false)
	case err != nil:
		return nil, err
	}
	files["go.work"] = work
	wf, err := modfile.ParseWork("go.work", work, nil)
	if err != nil {
		return nil, fmt.Errorf("go.work in the workspace: %w", err)
	}
	if err := read("go.work.sum", false); err != nil {
		return nil, err
	}
	for _, u := range wf.Use {
		dir := path.Clean(filepath.ToSlash(u.Path))
		if path.IsAbs(dir) || manifest.Escapes(dir) {
			return nil, fmt.Errorf("go.work uses %s, which lies outside the workspace: core downloads modules only for modules inside it", u.Path)
		}
		if err := read(path.Join(dir, "go.mod"), true); err != nil {
			return nil, err
		}
		if err := read(path.Join(dir, "go.sum"), false); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// GoModulesCached reports whether the module cache holds, complete, every
// module the module files need: each requirement of each go.mod must have
// its line in a sum file, and for every line of the sum files the cache
// must hold the go.mod (a "/go.mod" line) or the go.mod and the extracted
// tree, with no ".partial" marker of an interrupted extraction (any other
// line). The module cache is the host's own; the module files are the
// validated copies.
func GoModulesCached(files map[string][]byte, modCache string) bool {
	summed := map[string]bool{}
	for name, b := range files {
		if path.Base(name) != "go.sum" && path.Base(name) != "go.work.sum" {
			continue
		}
		for line := range strings.Lines(string(b)) {
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			if len(f) != 3 {
				return false
			}
			ver, goMod := strings.CutSuffix(f[1], "/go.mod")
			p, err1 := module.EscapePath(f[0])
			v, err2 := module.EscapeVersion(ver)
			if err1 != nil || err2 != nil {
				return false
			}
			if !isFile(filepath.Join(modCache, "cache", "download", p, "@v", v+".mod")) {
				return false
			}
			if goMod {
				continue
			}
			dir := filepath.Join(modCache, p+"@"+v)
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				return false
			}
			if _, err := os.Stat(dir + ".partial"); err == nil {
				return false
			}
			summed[f[0]+"@"+ver] = true
		}
	}
	for name, b := range files {
		if path.Base(name) != "go.mod" {
			continue
		}
		mf, err := modfile.ParseLax(name, b, nil)
		if err != nil {
			return false
		}
		for _, r := range mf.Require {
			if !summed[r.Mod.Path+"@"+r.Mod.Version] {
				return false
			}
		}
	}
	return true
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// Which Go the target needs: the toolchain its go.mod asks for when it
// is newer than the one on PATH, fetched by sandbox (sandbox/toolchain.go).

// goVersionLine matches a release in go.mod's go and toolchain lines.
var goVersionLine = regexp.MustCompile(`^(go|toolchain)\s+(go)?([0-9]+\.[0-9]+(?:\.[0-9]+|rc[0-9]+)?)\s*(?://.*)?$`)

// WantedToolchain returns the toolchain go.mod asks for ("go1.27.1"), or ""
// when it asks for nothing newer than local (a go version string such as
// "go1.26.8").
func WantedToolchain(gomod []byte, local string) string {
	var goLine, toolchainLine string
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		m := goVersionLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		v := "go" + m[3]
		if m[1] == "go" {
			goLine = v
		} else {
			toolchainLine = v
		}
	}
	want := goLine
	if version.Compare(toolchainLine, want) > 0 {
		want = toolchainLine
	}
	if want == "" || !version.IsValid(want) || version.Compare(want, local) <= 0 {
		return ""
	}
	// "go 1.27" is the language: its first release is go1.27.0.
	if strings.Count(want, ".") == 1 && !strings.Contains(want, "rc") {
		want += ".0"
	}
	return want
}

// ToolchainBin is the bin directory of a toolchain in the module cache.
func ToolchainBin(modCache, toolchain string) string {
	return filepath.Join(modCache, "golang.org", "toolchain@v0.0.1-"+toolchain+"."+runtime.GOOS+"-"+runtime.GOARCH, "bin")
}
