package mcptool

import (
	"fmt"
	"maps"
	"net"
	"regexp"
	"slices"
	"strings"
)

// Where a server runs, or how it is reached.
type Where int

const (
	// InBox is a stdio server run inside the run's box, confined like the
	// model's commands: a repository's.
	InBox Where = iota
	// OnHost is a stdio server run on this machine as the user's own
	// command: a server of the user's settings.
	OnHost
	// Remote is an http server, reached over the network.
	Remote
)

func (w Where) String() string {
	switch w {
	case InBox:
		return "in the run's box"
	case OnHost:
		return "on this machine"
	}
	return "remote"
}

// Planned is one server as it will be started: where, with what, and
// whether its tools may run without a person.
type Planned struct {
	Name       string
	Where      Where
	Argv       []string          // a stdio server's command and arguments
	Env        []string          // NAME=value added to a stdio server's environment
	URL        string            // a remote server's endpoint
	Headers    map[string]string // a remote server's request headers
	Unattended bool              // the user's settings mark it so
	// Secrets are the values taken from the user's environment for it:
	// scrubbed from everything its tools return.
	Secrets []string
}

// Plan applies the trust rules to the user's configurations (the settings
// file, then the Action's mcp_config: a later one's server replaces an
// earlier one's of the same name, core's keys add up) and the repository's.
// It returns the servers to start, in name order, and a note for each one
// left out saying why. getenv reads the user's environment; only the names
// the user's settings list for a server are read.
//
// The rules: a user's stdio server runs on this machine with the variables
// listed for it; a user's http server is reached with its headers (${NAME}
// taking a listed variable); a repository's stdio server runs in the run's
// box with its env as literals and never a variable of the user's; a
// repository's http server is reached only when the user's allowHosts names
// its host, with its headers as literals; a repository's server never
// replaces a user's of the same name.
func Plan(user []File, repo File, getenv func(string) string) ([]Planned, []string) {
	servers := map[string]Server{}
	var keys Keys
	keys.Env = map[string][]string{}
	for _, f := range user {
		maps.Copy(servers, f.Servers)
		keys.AllowHosts = append(keys.AllowHosts, f.Core.AllowHosts...)
		keys.Unattended = append(keys.Unattended, f.Core.Unattended...)
		for k, v := range f.Core.Env {
			keys.Env[k] = append(keys.Env[k], v...)
		}
	}
	var out []Planned
	var notes []string
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		p, err := planUser(name, servers[name], keys.Env[name], getenv)
		if err != nil {
			notes = append(notes, fmt.Sprintf("MCP server %q left out: %v", name, err))
			continue
		}
		p.Unattended = slices.Contains(keys.Unattended, name)
		out = append(out, p)
	}
	for _, name := range slices.Sorted(maps.Keys(repo.Servers)) {
		if _, mine := servers[name]; mine {
			notes = append(notes, fmt.Sprintf("MCP server %q of %s left out: your settings declare a server of that name, which is used", name, RepoFile))
			continue
		}
		s := repo.Servers[name]
		p := Planned{Name: name, Unattended: slices.Contains(keys.Unattended, name)}
		if len(keys.Env[name]) > 0 {
			notes = append(notes, fmt.Sprintf("MCP server %q of %s gets none of the variables your settings list for it: a repository's server runs in the run's box, where the model's commands could read them", name, RepoFile))
		}
		if s.HTTP() {
			if !HostAllowed(keys.AllowHosts, s.URL) {
				notes = append(notes, fmt.Sprintf("MCP server %q of %s left out, never contacted: its host is not in your settings' allowHosts (%s)", name, RepoFile, s.URL))
				continue
			}
			p.Where, p.URL, p.Headers = Remote, s.URL, maps.Clone(s.Headers)
		} else {
			p.Where, p.Argv, p.Env = InBox, append([]string{s.Command}, s.Args...), envList(s.Env)
		}
		out = append(out, p)
	}
	return out, notes
}

var reference = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// planUser plans a server of the user's settings.
func planUser(name string, s Server, names []string, getenv func(string) string) (Planned, error) {
	p := Planned{Name: name}
	given := map[string]string{}
	for _, n := range names {
		v := getenv(n)
		if v == "" {
			return p, fmt.Errorf("the variable %s your settings give it is not set in your environment", n)
		}
		given[n] = v
		p.Secrets = append(p.Secrets, v)
	}
	if s.HTTP() {
		p.Where, p.URL, p.Headers = Remote, s.URL, map[string]string{}
		for k, v := range s.Headers {
			var missing string
			p.Headers[k] = reference.ReplaceAllStringFunc(v, func(ref string) string {
				n := reference.FindStringSubmatch(ref)[1]
				val, ok := given[n]
				if !ok {
					missing = n
				}
				return val
			})
			if missing != "" {
				return p, fmt.Errorf("header %s names ${%s}, which is not among the variables core.env gives it", k, missing)
			}
		}
		return p, nil
	}
	p.Where, p.Argv = OnHost, append([]string{s.Command}, s.Args...)
	p.Env = envList(s.Env)
	for _, n := range slices.Sorted(maps.Keys(given)) {
		p.Env = append(p.Env, n+"="+given[n])
	}
	return p, nil
}

func envList(env map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

// HostAllowed reports whether a remote server's URL is one the allowed
// hosts name: an entry "host" allows the host on any port, "host:port"
// that port alone. Names are compared without case.
func HostAllowed(allowed []string, raw string) bool {
	u, err := remoteURL(raw)
	if err != nil {
		return false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	for _, a := range allowed {
		a = strings.ToLower(a)
		if h, p, err := net.SplitHostPort(a); err == nil {
			if strings.Trim(h, "[]") == host && p == port {
				return true
			}
		} else if strings.Trim(a, "[]") == host {
			return true
		}
	}
	return false
}
