package sandbox

import (
	"fmt"
	"time"

	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/docker"
	"github.com/coreagent/core/sandbox/gocache"
	"github.com/coreagent/core/sandbox/limit"
)

// Config is what a Sandbox needs from its caller, read at the edge.
type Config struct {
	// Home is $CORE_HOME. The caches live under Home/cache; nothing else of
	// it is visible inside the sandbox.
	Home string
	// Mode is the CORE_SESSION_SANDBOX mode.
	Mode Mode
	// Path is the host PATH, used to find bwrap and the tools.
	Path string
	// HostHome is the user's home directory on the host. Commands that run on
	// the host get it as HOME; the sandbox never sees it.
	HostHome string
	// Lang is LANG for commands; empty means C.UTF-8.
	Lang string
	// HostEnv holds extra NAME=value pairs for commands that run on the host
	// (the module proxy settings: GOPROXY, GOPRIVATE, ...). They never reach
	// the sandbox.
	HostEnv []string
	// CargoIndex returns the host's index of the cargo registry a
	// workspace's Cargo.toml names (registry = "name"): its
	// CARGO_REGISTRIES_<NAME>_INDEX, which ConfigFromEnv cannot list ahead
	// (the name is the workspace's), read through the edge's getenv. Nil
	// means the indexes HostEnv holds alone.
	CargoIndex func(name string) string
	// DockerHost is the Docker engine's address (DOCKER_HOST); empty is the
	// default socket.
	DockerHost string
	// DockerImage overrides the image the Docker backend confines commands
	// in (CORE_SANDBOX_IMAGE); empty is core's own container's image.
	DockerImage string
	// ToolchainImages are the images the Docker backend runs an
	// ecosystem's commands and dependency step in, by ecosystem
	// (CORE_SANDBOX_TOOLCHAIN_IMAGES over DefaultToolchainImages); an
	// ecosystem without one runs in DockerImage.
	ToolchainImages map[string]string
	// ModCache is the Go module cache: filled by the confined module
	// download, read-only for every other confined command. Empty means
	// the user's (go env GOMODCACHE) with UserCaches, else Home/cache/gomod.
	ModCache string
	// UserCaches shares the user's Go caches with the sandbox, as
	// ConfigFromEnv does unless CORE_SANDBOX_USER_CACHES=off: the module
	// download fills the user's module cache, which confined commands see
	// read-only, and confined builds read the user's build cache through
	// CacheProg. Without it both caches are core's own, under Home/cache.
	UserCaches bool
	// GoEnv holds the user's NAME=value settings that say where their Go
	// caches are (GOPATH, GOMODCACHE, GOCACHE, GOENV, XDG_CACHE_HOME,
	// XDG_CONFIG_HOME), for asking go env.
	GoEnv []string
	// CacheProg is core's executable, which serves Go's build cache inside
	// the sandbox (`core sandbox gocache`): confined builds read the
	// user's build cache through it. Empty means confined builds use the
	// run's own layer of the build cache alone.
	CacheProg string
	// Agent is core's executable run inside each workspace's box as its
	// agent (`core sandbox agent`, box.go); empty means CacheProg. With
	// neither, there is no box: every command gets a sandbox of its own.
	Agent string
	// Repo is the repository the runs of this Sandbox work on (owner/name
	// on GitHub, or a local repository's absolute path). It keys the shared
	// layer of the build cache, which only this repository's runs read;
	// empty means no shared layer: each run builds from its own.
	Repo string
	// Limits bound every confined command; zero fields take DefaultLimits.
	Limits limit.Limits
	// DownloadTimeout bounds the module download; zero means
	// DefaultDownloadTimeout.
	DownloadTimeout time.Duration
	// WarmTimeout bounds the warm-up's compile (Warm); zero means
	// DefaultWarmTimeout.
	WarmTimeout time.Duration
}

// DefaultDownloadTimeout bounds the module download when the caller sets no
// timeout of its own.
const DefaultDownloadTimeout = 10 * time.Minute

// hostEnvNames are the variables worth passing to commands on the host and
// to the dependency steps: the Go module proxy and checksum settings, the
// other ecosystems' registries. None of them is a secret.
func hostEnvNames() []string {
	names := []string{"GOPROXY", "GOSUMDB", "GONOSUMDB", "GONOSUMCHECK", "GOPRIVATE", "GONOPROXY", "GOINSECURE", "GOVCS"}
	for _, eco := range []string{"node", "python", "rust"} {
		names = append(names, deps.HostEnvNames(eco)...)
	}
	return names
}

// ConfigFromEnv reads a sandbox's configuration from an environment, at the
// edge: CORE_SESSION_SANDBOX, PATH, HOME, LANG, the module proxy settings,
// the limits (CORE_SANDBOX_PIDS, CORE_SANDBOX_MEMORY, CORE_SANDBOX_CPU,
// CORE_SANDBOX_FILE_SIZE, CORE_SANDBOX_TMP, CORE_SANDBOX_WORKSPACE_GROWTH),
// CORE_SANDBOX_DOWNLOAD_TIMEOUT, CORE_SANDBOX_WARM_TIMEOUT,
// CORE_SANDBOX_USER_CACHES and where the user's Go caches are (GOPATH,
// GOMODCACHE, GOCACHE, ...). home is the state directory ($CORE_HOME or the
// entry point's own).
func ConfigFromEnv(home string, getenv func(string) string) (Config, error) {
	mode, err := ParseMode(getenv("CORE_SESSION_SANDBOX"))
	if err != nil {
		return Config{}, err
	}
	limits, err := limit.LimitsFromEnv(getenv)
	if err != nil {
		return Config{}, err
	}
	cfg := Config{Home: home, Mode: mode, Path: getenv("PATH"), HostHome: getenv("HOME"), Lang: getenv("LANG"), Limits: limits,
		DockerHost: getenv("DOCKER_HOST"), DockerImage: getenv("CORE_SANDBOX_IMAGE")}
	if cfg.ToolchainImages, err = docker.ParseToolchainImages(getenv("CORE_SANDBOX_TOOLCHAIN_IMAGES")); err != nil {
		return Config{}, fmt.Errorf("CORE_SANDBOX_TOOLCHAIN_IMAGES: %w", err)
	}
	if v := getenv("CORE_SANDBOX_DOWNLOAD_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return Config{}, fmt.Errorf("CORE_SANDBOX_DOWNLOAD_TIMEOUT must be a duration such as 10m, got %q", v)
		}
		cfg.DownloadTimeout = d
	}
	if v := getenv("CORE_SANDBOX_WARM_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return Config{}, fmt.Errorf("CORE_SANDBOX_WARM_TIMEOUT must be a duration such as 20m, got %q", v)
		}
		cfg.WarmTimeout = d
	}
	switch v := getenv("CORE_SANDBOX_USER_CACHES"); v {
	case "", "on":
		cfg.UserCaches = true
	case "off":
	default:
		return Config{}, fmt.Errorf("CORE_SANDBOX_USER_CACHES must be on or off, got %q", v)
	}
	for _, name := range gocache.UserEnvNames() {
		if v := getenv(name); v != "" {
			cfg.GoEnv = append(cfg.GoEnv, name+"="+v)
		}
	}
	for _, name := range hostEnvNames() {
		if v := getenv(name); v != "" {
			cfg.HostEnv = append(cfg.HostEnv, name+"="+v)
		}
	}
	// An index is where to fetch from, never a credential (those are
	// CARGO_REGISTRIES_<NAME>_TOKEN, never read).
	cfg.CargoIndex = func(name string) string { return getenv(deps.CargoIndexVar(name)) }
	return cfg, nil
}
