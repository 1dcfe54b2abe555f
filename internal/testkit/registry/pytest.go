package registry

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DebianSite is where Debian's python3 packages (python3-pytest) are
// installed.
const DebianSite = "/usr/lib/python3/dist-packages"

// installedPytest are pytest and what it needs on Python 3.11 (Debian
// bookworm's), as Debian installs them: each distribution's top-level
// modules, its requirements and its scripts.
var installedPytest = []struct {
	name        string
	paths       []string
	requires    []string
	entryPoints string
}{
	{name: "pytest", paths: []string{"pytest", "_pytest", "py.py"},
		requires:    []string{"attrs>=19.2.0", "iniconfig", "packaging", "pluggy<2.0,>=0.12"},
		entryPoints: "[console_scripts]\npytest = pytest:console_main\npy.test = pytest:console_main\n"},
	{name: "attrs", paths: []string{"attr", "attrs"}},
	{name: "iniconfig", paths: []string{"iniconfig"}},
	{name: "packaging", paths: []string{"packaging"}},
	{name: "pluggy", paths: []string{"pluggy"}},
}

// AddInstalledPytest publishes the real pytest installed in site (Debian's
// python3-pytest, under DebianSite) and the distributions it needs, each
// as a pure-Python wheel of its installed files at its installed version:
// what pip fetches when a toolchain lacks pytest. It fails when site lacks
// one of them.
func (r *Registry) AddInstalledPytest(site string) error {
	for _, d := range installedPytest {
		version, err := installedVersion(site, d.name)
		if err != nil {
			return err
		}
		files := map[string]string{}
		for _, p := range d.paths {
			if err := readModule(site, p, files); err != nil {
				return fmt.Errorf("%s %s: %w (install Debian's python3-pytest)", d.name, version, err)
			}
		}
		r.Publish(Wheel{Name: d.name, Version: version, Files: files, Requires: d.requires, EntryPoints: d.entryPoints})
	}
	return nil
}

// installedVersion reads a distribution's version from the name of its
// .dist-info or .egg-info directory in site, without a local label
// (Debian's 1.0.0+repack is 1.0.0).
func installedVersion(site, name string) (string, error) {
	for _, ext := range []string{".dist-info", ".egg-info"} {
		found, _ := filepath.Glob(filepath.Join(site, name+"-*"+ext))
		if len(found) > 0 {
			v := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(found[0]), name+"-"), ext)
			v, _, _ = strings.Cut(v, "+")
			return v, nil
		}
	}
	return "", fmt.Errorf("%s is not installed in %s (install Debian's python3-pytest)", name, site)
}

// readModule adds the files of the module at rel in site (a package's
// directory or one .py file) to files, without compiled ones.
func readModule(site, rel string, files map[string]string) error {
	root := filepath.Join(site, rel)
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "__pycache__" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".pyc") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		name, _ := filepath.Rel(site, p)
		files[filepath.ToSlash(name)] = string(b)
		return nil
	})
}
