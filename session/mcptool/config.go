// Package mcptool offers the tools of MCP servers (the Model Context
// Protocol) to the model as tools like any other: gated, confined and
// bounded. Servers come from three sources: the user's settings
// ($CORE_HOME/mcp.json), the Action's input mcp_config (the same format,
// the same trust) and the repository's .mcp.json (trusted only as the
// repository's code is). Plan decides, as a pure function, where each
// server runs and what it gets; Start connects to them and returns their
// tools.
package mcptool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/coreagent/core/sandbox/manifest"
)

// Limits on what a configuration may declare.
const (
	// MaxConfigSize is the most bytes read of a configuration file.
	MaxConfigSize = 256 << 10
	// MaxServers is the most servers one configuration declares.
	MaxServers = 16
	maxArgs    = 64
	maxEnv     = 64
	maxValue   = 8 << 10
)

// RepoFile is the repository's configuration, at the workspace's root.
const RepoFile = ".mcp.json"

// File is one configuration in the common format
// {"mcpServers": {NAME: server}}, with, in the user's settings only, core's
// own keys under "core".
type File struct {
	Servers map[string]Server `json:"mcpServers"`
	Core    Keys              `json:"core"`
}

// Server is one server's entry: a command (stdio) or a URL (http).
type Server struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// Keys are what only the user may say: the remote hosts that may be
// reached, the servers that may be called unattended, and the variables of
// the user's environment each of the user's servers gets, by name.
type Keys struct {
	// AllowHosts are host or host:port of the remote (http) servers
	// core may contact.
	AllowHosts []string `json:"allowHosts,omitempty"`
	// Unattended names the servers whose tools run without asking a
	// person (and so in unattended runs).
	Unattended []string `json:"unattended,omitempty"`
	// Env maps a server to the names of the user's environment variables
	// it gets; a header value ${NAME} of that server takes one of them.
	Env map[string][]string `json:"env,omitempty"`
}

// HTTP reports whether the server is a remote one.
func (s Server) HTTP() bool { return s.Type == "http" }

var (
	serverName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,47}$`)
	envName    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)
)

// Parse reads one configuration strictly: unknown keys, trailing data, a
// server neither command nor URL, and values past the bounds are errors
// that name where (source: a file's path; "" when the caller names it).
// repo is set for
// the repository's file, which may not hold core's keys.
func Parse(source string, data []byte, repo bool) (File, error) {
	bad := func(format string, a ...any) (File, error) {
		if source == "" {
			return File{}, fmt.Errorf(format, a...)
		}
		return File{}, fmt.Errorf("%s: %s", source, fmt.Sprintf(format, a...))
	}
	if len(data) > MaxConfigSize {
		return bad("%d bytes, over the %d-byte limit of an MCP configuration", len(data), MaxConfigSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return bad("not an MCP configuration ({\"mcpServers\": {\"name\": {\"command\": ..., \"args\": [...]}}}): %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return bad("trailing data after the configuration's object")
	}
	if repo && !f.Core.empty() {
		return bad(`the key "core" (hosts, unattended servers, environment variables) is the user's to set, in $CORE_HOME/mcp.json or the Action's mcp_config, never the repository's: remove it`)
	}
	if len(f.Servers) > MaxServers {
		return bad("%d servers, over the limit of %d", len(f.Servers), MaxServers)
	}
	for _, name := range slices.Sorted(maps.Keys(f.Servers)) {
		if err := checkServer(name, f.Servers[name]); err != nil {
			return bad("%v", err)
		}
	}
	if err := f.Core.check(); err != nil {
		return bad("core: %v", err)
	}
	return f, nil
}

func checkServer(name string, s Server) error {
	if !serverName.MatchString(name) {
		return fmt.Errorf("server name %q: use 1 to 48 letters, digits, '_', '.' or '-'", name)
	}
	switch s.Type {
	case "", "stdio":
		if s.Command == "" {
			return fmt.Errorf("server %q: a stdio server needs \"command\"", name)
		}
		if s.URL != "" || len(s.Headers) > 0 {
			return fmt.Errorf("server %q: \"url\" and \"headers\" belong to \"type\": \"http\"", name)
		}
	case "http":
		if s.Command != "" || len(s.Args) > 0 || len(s.Env) > 0 {
			return fmt.Errorf("server %q: an http server has \"url\" and \"headers\", not \"command\", \"args\" or \"env\"", name)
		}
		if _, err := remoteURL(s.URL); err != nil {
			return fmt.Errorf("server %q: %w", name, err)
		}
	default:
		return fmt.Errorf("server %q: \"type\" %q is not one core speaks: use \"stdio\" (the default) or \"http\" (streamable HTTP)", name, s.Type)
	}
	if len(s.Args) > maxArgs || len(s.Env) > maxEnv || len(s.Headers) > maxEnv {
		return fmt.Errorf("server %q: more than %d args, env or headers", name, maxArgs)
	}
	values := append([]string{s.Command, s.URL}, s.Args...)
	for k, v := range s.Env {
		if !envName.MatchString(k) {
			return fmt.Errorf("server %q: env name %q is not a variable name", name, k)
		}
		values = append(values, v)
	}
	for k, v := range s.Headers {
		if k == "" || strings.ContainsAny(k, ":\r\n ") || strings.ContainsAny(v, "\r\n") {
			return fmt.Errorf("server %q: header %q is not a valid header line", name, k)
		}
		values = append(values, v)
	}
	for _, v := range values {
		if len(v) > maxValue || strings.ContainsRune(v, 0) {
			return fmt.Errorf("server %q: a value over %d bytes or holding a NUL byte", name, maxValue)
		}
	}
	return nil
}

// remoteURL checks a remote server's URL: http or https, a host, no user
// information.
func remoteURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, fmt.Errorf("\"url\" %q must be an http or https URL with a host and no user:password", raw)
	}
	return u, nil
}

func (k Keys) empty() bool {
	return len(k.AllowHosts) == 0 && len(k.Unattended) == 0 && len(k.Env) == 0
}

func (k Keys) check() error {
	if len(k.AllowHosts) > maxArgs || len(k.Unattended) > maxArgs || len(k.Env) > maxArgs {
		return fmt.Errorf("more than %d entries", maxArgs)
	}
	for _, h := range k.AllowHosts {
		if h == "" || strings.ContainsAny(h, "/@ ") {
			return fmt.Errorf("allowHosts: %q is not a host or host:port", h)
		}
	}
	for server, names := range k.Env {
		for _, n := range names {
			if !envName.MatchString(n) {
				return fmt.Errorf("env of %q: %q is not a variable name", server, n)
			}
		}
	}
	return nil
}

// Config is what a run is told of its MCP servers (docs/mcp.md): the
// user's configurations, setup's to read; the repository's .mcp.json is
// read from the workspace when the run starts (ReadRepo).
type Config struct {
	// User are the user's configurations, in order: the settings file
	// ($CORE_HOME/mcp.json), then the Action's mcp_config.
	User []File
	// Getenv reads the user's environment, for the variables the user's
	// settings give their servers by name; nil gives none.
	Getenv func(string) string
	// HostEnv is what a user's stdio server starts with (PATH, HOME,
	// LANG), before the variables its settings give it.
	HostEnv []string
	// CallTimeout bounds one call of a server's tool; zero is
	// DefaultCallTimeout.
	CallTimeout time.Duration
	// NoRepo leaves the repository's .mcp.json unread.
	NoRepo bool
}

// ReadRepo reads the repository's .mcp.json at the workspace's root as
// host code reads a hostile workspace: a regular file, no link followed,
// bounded in size, parsed strictly. No file is no servers.
func ReadRepo(workspace string) (File, error) {
	data, err := manifest.ReadWorkspaceFile(workspace, RepoFile, MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return File{}, nil
	}
	if err != nil {
		return File{}, err
	}
	return Parse(RepoFile, data, true)
}
