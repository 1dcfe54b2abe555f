package lang

import (
	"io"
	"os"
	"path"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// Python without a manifest. Many small Python repositories are plain
// modules beside their test_*.py files, with no pyproject.toml, setup.py
// or requirements.txt: pytest runs them as they are. When the workspace's
// top names no ecosystem at all, Detect looks for Python tests below it,
// the way host code looks at anything in the workspace: each directory
// opened beneath its parent without following a link, links never
// descended, file contents never read, and the walk bounded in depth and
// in entries.

const (
	// maxTestWalkDepth is how deep below the top the walk looks
	// (pkg/sub/tests/test_x.py is at depth 4).
	maxTestWalkDepth = 4
	// maxTestWalkEntries caps the directory entries the walk reads in all.
	maxTestWalkEntries = 5000
)

// pythonTestFolders are the folders whose .py files are tests.
var pythonTestFolders = []string{"tests", "test"}

// isPythonTest reports whether the regular file at rel (slash-separated,
// relative to the workspace) is a Python test: test_*.py, *_test.py, or a
// .py file in a tests or test folder.
func isPythonTest(rel string) bool {
	dir, name := path.Split(rel)
	stem, ok := strings.CutSuffix(name, ".py")
	if !ok || stem == "" {
		return false
	}
	if (strings.HasPrefix(stem, "test_") && len(stem) > len("test_")) || (strings.HasSuffix(stem, "_test") && len(stem) > len("_test")) {
		return true
	}
	return slices.ContainsFunc(strings.Split(strings.Trim(dir, "/"), "/"), func(d string) bool { return slices.Contains(pythonTestFolders, d) })
}

// skipTestWalk reports whether the walk leaves a folder alone: hidden ones
// (.git, .venv), and those that hold other people's code or build output.
func skipTestWalk(name string) bool {
	return strings.HasPrefix(name, ".") || slices.Contains([]string{"node_modules", "vendor", "__pycache__", "site-packages", "venv", "target"}, name)
}

// pythonTestsIn reports whether the workspace ws holds a Python test
// (isPythonTest) within maxTestWalkDepth folders of its top, reading at
// most maxTestWalkEntries entries. A folder it cannot open as a real
// directory (a link, or one swapped for a link) is passed over.
func pythonTestsIn(ws string) bool {
	top, err := unix.Open(ws, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	type folder struct {
		fd  int
		rel string
	}
	queue := []folder{{fd: top}}
	defer func() {
		for _, f := range queue {
			unix.Close(f.fd)
		}
	}()
	budget := maxTestWalkEntries
	for len(queue) > 0 && budget > 0 {
		cur := queue[0]
		queue = queue[1:]
		f := os.NewFile(uintptr(cur.fd), cur.rel)
		depth := 0
		if cur.rel != "" {
			depth = strings.Count(cur.rel, "/") + 1
		}
		var subs []string
		for budget > 0 {
			entries, err := f.ReadDir(min(budget, 256))
			budget -= len(entries)
			for _, e := range entries {
				rel := path.Join(cur.rel, e.Name())
				switch {
				case e.Type().IsRegular() && isPythonTest(rel):
					f.Close()
					return true
				case e.IsDir() && e.Type()&os.ModeSymlink == 0 && depth+1 < maxTestWalkDepth && !skipTestWalk(e.Name()):
					subs = append(subs, e.Name())
				}
			}
			if err == io.EOF || err != nil || len(entries) == 0 {
				break
			}
		}
		for _, name := range subs {
			fd, err := unix.Openat(cur.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err == nil {
				queue = append(queue, folder{fd: fd, rel: path.Join(cur.rel, name)})
			}
		}
		f.Close()
	}
	return false
}
