package registry

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Registry is a stand-in for the package registries of the ecosystems
// beside Go, served from files in memory over HTTP on loopback, speaking
// each one's real protocol:
//
//   - npm: GET /npm/<name> is the package's metadata (its versions, each
//     with dist.tarball and dist.integrity), GET /npm/<name>/-/<file>.tgz
//     the tarball;
//   - PEP 503: GET /simple/<name>/ is the simple index page linking the
//     wheels (with #sha256=), GET /files/<wheel> a wheel;
//   - cargo's sparse protocol: GET /cargo/config.json, the index files
//     under /cargo/ (1/a, 2/ab, 3/a/abc, ab/cd/abcd…), GET
//     /cargo/crates/<name>/<version>/download a .crate; and the same index
//     as a git repository over git's dumb HTTP protocol under
//     /cargo-git/ (CargoGitIndex), for a cargo older than the sparse
//     protocol (Debian bookworm's), which fetches it with the git command
//     (CARGO_NET_GIT_FETCH_WITH_CLI=true).
//
// It records every request's path (Requests), so a test can tell what a
// dependency step fetched.
type Registry struct {
	URL string

	t        testing.TB
	gitIndex string // the git index's work tree; its .git is served

	mu       sync.Mutex
	files    map[string][]byte // path → body
	types    map[string]string // path → Content-Type
	npm      map[string]map[string]any
	wheels   map[string][]string // normalized name → anchors
	crates   map[string][]string // name → index lines
	requests []string
}

// NewRegistry starts a Registry on 127.0.0.1, closed when the test ends.
func NewRegistry(t testing.TB) *Registry {
	t.Helper()
	r := &Registry{t: t, files: map[string][]byte{}, types: map[string]string{}, npm: map[string]map[string]any{},
		wheels: map[string][]string{}, crates: map[string][]string{}, gitIndex: t.TempDir()}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("registry: listen on loopback: %v", err)
	}
	srv := httptest.NewUnstartedServer(r)
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	config := []byte(fmt.Sprintf(`{"dl":"%s/cargo/crates/{crate}/{version}/download"}`, srv.URL))
	r.put("/cargo/config.json", "application/json", config)
	r.git("init", "-q", "-b", "main")
	r.commitIndex("config.json", config)
	return r
}

// git runs git in the git index's work tree.
func (r *Registry) git(args ...string) {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=registry", "-c", "user.email=registry@example.com"}, args...)...)
	cmd.Dir = r.gitIndex
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("registry: git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// commitIndex writes one file of the git index and commits it, ready for
// git's dumb HTTP protocol.
func (r *Registry) commitIndex(name string, body []byte) {
	r.t.Helper()
	p := filepath.Join(r.gitIndex, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatalf("registry: %v", err)
	}
	if err := os.WriteFile(p, body, 0o644); err != nil {
		r.t.Fatalf("registry: %v", err)
	}
	r.git("add", "--", name)
	r.git("commit", "-q", "-m", "update "+name)
	r.git("update-server-info")
}

// CargoGitIndex is the registry's index as a git repository (dumb HTTP),
// as cargo's configuration names it.
func (r *Registry) CargoGitIndex() string { return r.URL + "/cargo-git/" }

// ServeHTTP answers from the files.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.requests = append(r.requests, req.URL.Path)
	body, ok := r.files[req.URL.Path]
	typ := r.types[req.URL.Path]
	r.mu.Unlock()
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		http.Error(w, "the registry serves GET only", http.StatusMethodNotAllowed)
		return
	}
	if rest, isGit := strings.CutPrefix(req.URL.Path, "/cargo-git/"); isGit {
		// git's dumb protocol: the files of the repository, as they are.
		http.ServeFile(w, req, filepath.Join(r.gitIndex, ".git", filepath.FromSlash(path.Clean("/"+rest))))
		return
	}
	if !ok {
		http.NotFound(w, req)
		return
	}
	w.Header().Set("Content-Type", typ)
	_, _ = w.Write(body)
}

// Requests returns the paths asked for, in order.
func (r *Registry) Requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests)
}

func (r *Registry) put(path, typ string, body []byte) {
	r.files[path] = body
	r.types[path] = typ
}

// NpmURL is the registry's npm root (npm_config_registry).
func (r *Registry) NpmURL() string { return r.URL + "/npm/" }

// AddNpm publishes an npm package whose tarball holds files (package.json
// among them, made when missing) and returns its tarball's URL and
// integrity, as a package-lock.json names them.
func (r *Registry) AddNpm(name, version string, files map[string]string) (tarball, integrity string) {
	if _, ok := files["package.json"]; !ok {
		files = cloneFiles(files)
		files["package.json"] = fmt.Sprintf(`{"name":%q,"version":%q}`, name, version)
	}
	tgz := tarGz("package/", files)
	sum512 := sha512.Sum512(tgz)
	sum1 := sha1.Sum(tgz)
	integrity = "sha512-" + base64.StdEncoding.EncodeToString(sum512[:])
	file := "/npm/" + name + "/-/" + name + "-" + version + ".tgz"
	tarball = r.URL + file
	r.mu.Lock()
	defer r.mu.Unlock()
	r.put(file, "application/octet-stream", tgz)
	versions := r.npm[name]
	if versions == nil {
		versions = map[string]any{}
		r.npm[name] = versions
	}
	versions[version] = map[string]any{"name": name, "version": version,
		"dist": map[string]string{"tarball": tarball, "integrity": integrity, "shasum": hex.EncodeToString(sum1[:])}}
	doc, _ := json.Marshal(map[string]any{"name": name, "versions": versions, "dist-tags": map[string]string{"latest": version}})
	r.put("/npm/"+name, "application/json", doc)
	return tarball, integrity
}

// SimpleURL is the registry's PEP 503 index (PIP_INDEX_URL).
func (r *Registry) SimpleURL() string { return r.URL + "/simple/" }

// AddWheel publishes a pure-Python wheel of the package holding files
// (module files, slash-separated) with its dist-info, and returns the
// wheel's file name.
func (r *Registry) AddWheel(name, version string, files map[string]string) string {
	return r.Publish(Wheel{Name: name, Version: version, Files: files})
}

// Wheel is a pure-Python wheel: its module files and the metadata pip
// resolves and installs by.
type Wheel struct {
	Name, Version string
	// Files are its module files, by slash-separated path.
	Files map[string]string
	// Requires are its Requires-Dist lines ("pluggy<2.0,>=0.12").
	Requires []string
	// EntryPoints is its entry_points.txt: the scripts pip writes.
	EntryPoints string
}

// Publish publishes a wheel, with its dist-info, and returns its file
// name.
func (r *Registry) Publish(w Wheel) string {
	dist := strings.ReplaceAll(w.Name, "-", "_")
	info := dist + "-" + w.Version + ".dist-info/"
	all := cloneFiles(w.Files)
	meta := fmt.Sprintf("Metadata-Version: 2.1\nName: %s\nVersion: %s\n", w.Name, w.Version)
	for _, req := range w.Requires {
		meta += "Requires-Dist: " + req + "\n"
	}
	all[info+"METADATA"] = meta
	all[info+"WHEEL"] = "Wheel-Version: 1.0\nGenerator: core-testkit\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
	if w.EntryPoints != "" {
		all[info+"entry_points.txt"] = w.EntryPoints
	}
	var record strings.Builder
	for _, n := range sortedKeys(all) {
		sum := sha256.Sum256([]byte(all[n]))
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", n, base64.RawURLEncoding.EncodeToString(sum[:]), len(all[n]))
	}
	record.WriteString(info + "RECORD,,\n")
	all[info+"RECORD"] = record.String()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range sortedKeys(all) {
		fw, _ := zw.Create(n)
		_, _ = fw.Write([]byte(all[n]))
	}
	_ = zw.Close()
	whl := dist + "-" + w.Version + "-py3-none-any.whl"
	sum := sha256.Sum256(buf.Bytes())
	r.mu.Lock()
	defer r.mu.Unlock()
	r.put("/files/"+whl, "application/octet-stream", buf.Bytes())
	r.list(w.Name, whl, sum[:])
	return whl
}

// list adds the file /files/<file> to the package's PEP 503 page, with its
// sha256; r.mu is held.
func (r *Registry) list(name, file string, sum []byte) {
	norm := strings.ToLower(strings.NewReplacer("_", "-", ".", "-").Replace(name))
	r.wheels[norm] = append(r.wheels[norm], fmt.Sprintf(`<a href="%s/files/%s#sha256=%s">%s</a>`, r.URL, file, hex.EncodeToString(sum), html.EscapeString(file)))
	page := "<!DOCTYPE html>\n<html><body>\n" + strings.Join(r.wheels[norm], "<br>\n") + "\n</body></html>\n"
	r.put("/simple/"+norm+"/", "text/html", []byte(page))
}

// CargoIndex is the registry's sparse index, as cargo's configuration
// names it (sparse+…/cargo/).
func (r *Registry) CargoIndex() string { return "sparse+" + r.URL + "/cargo/" }

// AddCrate publishes a crate holding files (src/lib.rs…; Cargo.toml is
// made when missing) and returns its checksum, as Cargo.lock names it.
func (r *Registry) AddCrate(name, version string, files map[string]string) string {
	if _, ok := files["Cargo.toml"]; !ok {
		files = cloneFiles(files)
		files["Cargo.toml"] = fmt.Sprintf("[package]\nname = %q\nversion = %q\nedition = \"2021\"\n", name, version)
	}
	crate := tarGz(name+"-"+version+"/", files)
	sum := sha256.Sum256(crate)
	cksum := hex.EncodeToString(sum[:])
	line, _ := json.Marshal(map[string]any{"name": name, "vers": version, "deps": []any{}, "cksum": cksum, "features": map[string]any{}, "yanked": false})
	r.mu.Lock()
	r.put("/cargo/crates/"+name+"/"+version+"/download", "application/octet-stream", crate)
	r.crates[name] = append(r.crates[name], string(line))
	index := []byte(strings.Join(r.crates[name], "\n") + "\n")
	r.put("/cargo/"+crateIndexPath(name), "text/plain", index)
	r.mu.Unlock()
	r.commitIndex(crateIndexPath(name), index)
	return cksum
}

// crateIndexPath is where cargo's index keeps a crate's file.
func crateIndexPath(name string) string {
	n := strings.ToLower(name)
	switch len(n) {
	case 1:
		return "1/" + n
	case 2:
		return "2/" + n
	case 3:
		return "3/" + n[:1] + "/" + n
	}
	return n[:2] + "/" + n[2:4] + "/" + n
}

// tarGz packs files under prefix into a gzipped tar.
func tarGz(prefix string, files map[string]string) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, n := range sortedKeys(files) {
		_ = tw.WriteHeader(&tar.Header{Name: prefix + n, Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg})
		_, _ = tw.Write([]byte(files[n]))
	}
	_ = tw.Close()
	_ = gz.Close()
	return buf.Bytes()
}

func cloneFiles(files map[string]string) map[string]string {
	out := make(map[string]string, len(files)+1)
	for k, v := range files {
		out[k] = v
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
