package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/gate"
	"github.com/coreagent/core/sandbox/gocache"
	"github.com/coreagent/core/sandbox/mask"
)

// systemRoots are the host directories the sandbox sees, read-only. Home
// directories, /root, /srv, /var and the rest of the host stay invisible.
var systemRoots = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"}

// sandboxHome is HOME inside the sandbox: the fresh tmpfs.
const sandboxHome = "/tmp"

// cacheProgPath is where the sandbox sees core's executable: the build
// cache's program (gocache), the box's agent and the dependency step's
// proxy.
const cacheProgPath = "/run/core/core"

// profile is a sandbox profile for one command: the production one (no
// network, the workspace writable but its .git), the module download (the
// network, no workspace, only a scratch directory of validated copies) and
// the network one for go mod (the network and the workspace).
type profile struct {
	workspace   string      // absolute path, writable inside except its .git
	mountAt     string      // where the workspace is seen inside, when not at its own path (RunOptions.MountAt)
	scratch     string      // download profile: host directory bound at deps.ScratchDir
	network     bool        // keep the host's network
	home        string      // $CORE_HOME, invisible inside but for the caches
	modCache    string      // Go module cache, read-only inside unless modCacheRW
	modCacheRW  bool        // the download and go mod fill the module cache
	modView     string      // host directory bound read-only at modCache instead of it (gocache/modview.go)
	modKeep     []string    // directories of the module cache bound over the view: the target's toolchain
	buildCache  string      // the run's layer of the Go build cache, writable (gocache/layers.go)
	cacheShared string      // host directory of the repository's shared layer, read-only, or ""
	userMods    bool        // modCache is the user's: leave its modes as go keeps them
	cacheProg   string      // core's executable, serving GOCACHEPROG inside
	cacheSock   string      // host socket of the user's build cache (gocache/gocache.go)
	cacheStage  string      // host directory of the linked view, or ""
	path        []string    // PATH inside
	toolRoots   []string    // toolchain directories outside systemRoots, read-only
	extraRO     []string    // more host paths visible read-only (file:// proxies, resolv.conf)
	masks       []string    // bwrap arguments hiding what root alone may read
	hostEnv     []string    // NAME=value pairs for the network profiles (proxy settings)
	extraEnv    []string    // NAME=value pairs of the command's ecosystem (ecosystemEnv)
	depBinds    []deps.Bind // the dependencies fetched for it, read-only (sandbox/deps)
	depWritable []string    // directories of depBinds writable per sandbox, a tmpfs each (writable.go)
	tmpSize     int64       // size of /tmp; 0 leaves it unbounded
	seccomp     bool        // load the filter from seccompFD
	lang        string
	maskScans   []mask.RootOnly // what masks was made of, to make it again (launch's retry)
	agent       string          // a box: core's executable, bound at cacheProgPath to run the agent
	boxDir      string          // a box: the host directory of the agent's socket, bound at boxDirPath
	hosts       string          // a host file bound at /etc/hosts (localhost), or ""
	goTelemetry string          // a host file bound at goTelemetryMode (off), or ""
}

// args returns bwrap's arguments to run argv under the profile.
func (p profile) args(argv []string) []string {
	a := []string{
		"--unshare-all", // user, ipc, pid, net (loopback only), uts, cgroup
		"--new-session", // no controlling terminal: no TIOCSTI injection
		"--die-with-parent",
		"--cap-drop", "ALL",
		"--hostname", "core-sandbox",
	}
	if p.network {
		a = append(a, "--share-net")
	}
	if p.seccomp {
		a = append(a, "--seccomp", strconv.Itoa(gate.SeccompFD))
	}
	a = append(a, systemRootArgs()...)
	a = append(a, p.masks...)
	if p.hosts != "" && !p.network { // a network command keeps the host's names
		if fi, err := os.Lstat("/etc/hosts"); err == nil && fi.Mode().IsRegular() {
			a = append(a, "--ro-bind", p.hosts, "/etc/hosts")
		}
	}
	for _, r := range p.toolRoots {
		a = append(a, "--ro-bind", r, r)
	}
	a = append(a, "--dev", "/dev", "--proc", "/proc")
	if p.tmpSize > 0 {
		a = append(a, "--size", strconv.FormatInt(p.tmpSize, 10))
	}
	a = append(a, "--tmpfs", "/tmp")
	if p.goTelemetry != "" {
		a = append(a, "--ro-bind", p.goTelemetry, goTelemetryMode)
	}
	for _, r := range p.extraRO {
		a = append(a, "--ro-bind", r, r)
	}
	if p.home != "" && visible(p.home, p.toolRoots) {
		// $CORE_HOME lies under a directory the sandbox sees: hide it.
		a = append(a, "--tmpfs", p.home)
	}
	a = append(a, p.cacheArgs()...)
	dir := p.inside()
	if p.scratch != "" {
		a = append(a, "--bind", p.scratch, deps.ScratchDir)
		dir = deps.ScratchDir
	}
	if p.workspace != "" {
		a = append(a, "--bind", p.workspace, p.inside())
		// Only a real .git (a directory, or a worktree's gitfile) is bound:
		// a link planted in its place would bind what it points to.
		git := filepath.Join(p.workspace, ".git")
		if fi, err := os.Lstat(git); err == nil && (fi.IsDir() || fi.Mode().IsRegular()) {
			a = append(a, "--ro-bind", git, filepath.Join(p.inside(), ".git"))
		}
	}
	for _, b := range p.depBinds {
		a = append(a, "--ro-bind", b.Host, b.Inside)
	}
	a = append(a, writableArgs(p.depWritable, p.tmpSize)...)
	a = append(a, "--clearenv")
	for _, kv := range p.env() {
		k, v, _ := strings.Cut(kv, "=")
		a = append(a, "--setenv", k, v)
	}
	a = append(a, "--chdir", dir, "--")
	return append(a, argv...)
}

// systemRootArgs binds the host's system directories read-only, and those
// that are links (a merged /usr's /bin) as the same links.
func systemRootArgs() []string {
	var a []string
	for _, root := range systemRoots {
		fi, err := os.Lstat(root)
		switch {
		case err != nil:
			continue
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(root)
			if err != nil {
				continue
			}
			a = append(a, "--symlink", target, root)
		case fi.IsDir():
			a = append(a, "--ro-bind", root, root)
		}
	}
	return a
}

// cacheArgs binds the Go caches the command uses (the module cache, or its
// view; the build cache), core's executable and the box's directory.
func (p profile) cacheArgs() []string {
	var a []string
	if p.modCache != "" {
		bind := "--ro-bind"
		if p.modCacheRW {
			bind = "--bind"
		}
		src := p.modCache
		if p.modView != "" && !p.modCacheRW {
			src = p.modView
		}
		a = append(a, bind, src, p.modCache)
		for _, k := range p.modKeep {
			a = append(a, "--ro-bind", k, k)
		}
	}
	if p.buildCache != "" {
		a = append(a, "--bind", p.buildCache, p.buildCache)
	}
	if p.agent != "" && p.cacheProg == "" {
		a = append(a, "--ro-bind", p.agent, cacheProgPath)
	}
	if p.boxDir != "" {
		a = append(a, "--bind", p.boxDir, boxDirPath)
	}
	if p.cacheProg != "" {
		a = append(a, "--ro-bind", p.cacheProg, cacheProgPath, "--ro-bind", p.cacheSock, gocache.SocketPath)
		if p.cacheStage != "" {
			a = append(a, "--ro-bind", p.cacheStage, gocache.StagePath)
		}
		if p.cacheShared != "" {
			a = append(a, "--ro-bind", p.cacheShared, gocache.SharedPath)
		}
	}
	return a
}

// inside is where the sandbox sees the workspace.
func (p profile) inside() string {
	if p.mountAt != "" {
		return p.mountAt
	}
	return p.workspace
}

// env is the whole environment inside the sandbox. Nothing of the parent's
// environment survives: no token, no key, no secret. The network profiles
// add the module proxy settings and may fill the module cache.
func (p profile) env() []string {
	lang := p.lang
	if lang == "" {
		lang = "C.UTF-8"
	}
	env := []string{
		"PATH=" + strings.Join(p.path, string(os.PathListSeparator)),
		"HOME=" + sandboxHome,
		"LANG=" + lang,
		"GOTOOLCHAIN=local",
	}
	if p.scratch != "" {
		// The download: nothing but what go mod download needs.
		env = append(env, "GOENV=off", "GOTELEMETRY=off")
		if !p.userMods {
			env = append(env, "GOFLAGS=-modcacherw")
		}
		if p.modCache != "" {
			env = append(env, "GOMODCACHE="+p.modCache)
		}
		env = append(env, p.extraEnv...)
		return append(env, p.hostEnv...)
	}
	env = append(env, "TMPDIR=/tmp", "GOPATH=/tmp/go", "GOENV=off", "GOTELEMETRY=off")
	if p.network {
		env = append(env, "GOFLAGS="+modFlags(p.userMods)+"-buildvcs=false")
		env = append(env, p.hostEnv...)
	} else {
		env = append(env, "GOFLAGS=-buildvcs=false", "GOPROXY=off")
	}
	if p.modCache != "" {
		env = append(env, "GOMODCACHE="+p.modCache)
	}
	env = append(env, p.extraEnv...)
	if p.buildCache != "" {
		env = append(env, "GOCACHE="+p.buildCache)
		if prog := gocache.ProgCommand(cacheProgPath, p.buildCache, p.cacheShared != ""); p.cacheProg != "" && prog != "" {
			env = append(env, "GOCACHEPROG="+prog)
		}
	}
	return env
}

// modFlags is the start of GOFLAGS for a go command that may fill the
// module cache: core's own cache stays writable, so that it can be
// removed; the user's is left as their go keeps it.
func modFlags(userMods bool) string {
	if userMods {
		return ""
	}
	return "-modcacherw "
}

// visible reports whether a host path is seen inside the sandbox through
// one of the read-only binds.
func visible(path string, extra []string) bool {
	for _, root := range append(append([]string(nil), systemRoots...), extra...) {
		real := root
		if r, err := filepath.EvalSymlinks(root); err == nil {
			real = r
		}
		if within(path, root) || within(path, real) {
			return true
		}
	}
	return false
}

// within reports whether path is dir or lies under it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// sandboxPath keeps the entries of the host PATH that the sandbox can see.
func sandboxPath(hostPath string, toolRoots []string) []string {
	var out []string
	for _, dir := range filepath.SplitList(hostPath) {
		if dir == "" || !filepath.IsAbs(dir) || !visible(dir, toolRoots) {
			continue
		}
		if !slices.Contains(out, dir) {
			out = append(out, dir)
		}
	}
	if len(out) == 0 {
		out = []string{"/usr/local/bin", "/usr/bin", "/bin"}
	}
	return out
}

// toolRoot returns what to make visible for a tool found at path on the
// host: the parent of its bin directory (a Go or Flutter SDK), or the
// executable alone when that directory would also reveal one of the private
// directories (the user's home, $CORE_HOME); "" when the sandbox already
// sees it.
func toolRoot(path string, private ...string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	if visible(real, nil) {
		return ""
	}
	dir := filepath.Dir(real)
	if filepath.Base(dir) == "bin" {
		dir = filepath.Dir(dir)
	}
	for _, p := range private {
		if p != "" && within(p, dir) {
			return real
		}
	}
	if dir == "/" {
		return real
	}
	return dir
}
