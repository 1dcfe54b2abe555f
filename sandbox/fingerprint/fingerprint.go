// Package fingerprint says how a check was confined and with which
// toolchains, in words that do not depend on the machine's paths: two
// machines that confine a check alike give its profile the same hash
// (Profile.Hash), which a receipt names and `core verify` compares.
package fingerprint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/limit"
)

// Profile is what a check's confinement is: the backend, the tier, what
// is seen read-only and what is writable, the network, the limits and the
// seccomp filter. Never a path of one run or a temporary directory's name.
type Profile struct {
	Backend  string   `json:"backend"`
	Tier     string   `json:"tier"`
	ReadOnly []string `json:"read_only"`
	Writable []string `json:"writable"`
	Network  string   `json:"network"`
	Limits   Limits   `json:"limits"`
	// Seccomp is the SHA-256 of the filter program every confined check
	// loads, or "none" when this machine cannot make one.
	Seccomp string `json:"seccomp"`
}

// Limits is limit.Limits in whole numbers.
type Limits struct {
	Processes     int   `json:"processes"`
	MemoryBytes   int64 `json:"memory_bytes"`
	CPUSeconds    int64 `json:"cpu_seconds"`
	FileSizeBytes int64 `json:"file_size_bytes"`
	TmpBytes      int64 `json:"tmp_bytes"`
	GrowthBytes   int64 `json:"workspace_growth_bytes"`
}

// Describe is the profile of a check confined by backend at tier, the
// host's roots read-only (the sandbox's system roots), under l.
func Describe(backend, tier string, roots []string, l limit.Limits) Profile {
	seccomp := "none"
	if prog, err := limit.SeccompProgram(false); err == nil {
		seccomp = digest(prog)
	}
	return Profile{
		Backend:  backend,
		Tier:     tier,
		ReadOnly: append(slices.Clone(roots), "the toolchains' directories", "the workspace's .git", "the Go module cache"),
		Writable: []string{"the workspace", "/tmp (a fresh tmpfs, HOME)", "the run's layer of the Go build cache"},
		Network:  "none (loopback only)",
		Limits: Limits{
			Processes: l.Processes, MemoryBytes: l.Memory, CPUSeconds: int64(l.CPUTime / time.Second),
			FileSizeBytes: l.FileSize, TmpBytes: l.Tmp, GrowthBytes: l.WorkspaceGrowth,
		},
		Seccomp: seccomp,
	}
}

// Hash names a profile: "sha256:" and the hex digest of its JSON.
func (p Profile) Hash() string {
	b, _ := json.Marshal(p) // strings and numbers: it never fails
	return digest(b)
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Names are the names of an environment of NAME=value pairs (never the
// values, which hold the machine's paths), sorted, each once.
func Names(env []string) []string {
	var names []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// versionArgv is how each ecosystem's toolchain says its version.
var versionArgv = map[string][]string{
	"go":     {"go", "version"},
	"python": {"python3", "--version"},
	"node":   {"node", "--version"},
	"rust":   {"cargo", "--version"},
}

// versionTimeout bounds each toolchain's answer.
const versionTimeout = 20 * time.Second

// Toolchains are the versions of the toolchains the checks' ecosystems
// use, found on path, by ecosystem ("go": "go version go1.26.0
// linux/amd64"); an ecosystem whose toolchain is not there is left out,
// and nil means none was.
func Toolchains(ctx context.Context, path string, checks [][]string) map[string]string {
	out := map[string]string{}
	for _, argv := range checks {
		if len(argv) == 0 {
			continue
		}
		e, ok := lang.EcosystemOf(argv[0])
		va, known := versionArgv[e.Name]
		if _, done := out[e.Name]; !ok || !known || done {
			continue
		}
		if v := version(ctx, path, va); v != "" {
			out[e.Name] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// version runs argv, its program found on path, and returns its first
// line; "" when it is not there or fails.
func version(ctx context.Context, path string, argv []string) string {
	prog := ""
	for _, dir := range filepath.SplitList(path) {
		if p := filepath.Join(dir, argv[0]); filepath.IsAbs(dir) && limit.IsExecutable(p) {
			prog = p
			break
		}
	}
	if prog == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, argv[1:]...)
	cmd.Env = []string{"PATH=" + path, "HOME=" + os.TempDir(), "GOTOOLCHAIN=local", "GOTELEMETRY=off"}
	cmd.Dir = os.TempDir()
	b, err := cmd.Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return line
}
