package main

import "testing"

func TestRepoFromRemote(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, remote, host, want string
		ok                       bool
	}{
		{name: "https", remote: "https://github.com/octo/hello.git", host: "github.com", want: "octo/hello", ok: true},
		{name: "https without .git", remote: "https://github.com/octo/hello", host: "github.com", want: "octo/hello", ok: true},
		{name: "scp-like ssh", remote: "git@github.com:octo/hello.git", host: "github.com", want: "octo/hello", ok: true},
		{name: "ssh url", remote: "ssh://git@github.com/octo/hello.git", host: "github.com", want: "octo/hello", ok: true},
		{name: "enterprise", remote: "https://ghe.example.com/team/app.git", host: "ghe.example.com", want: "team/app", ok: true},
		{name: "another host", remote: "https://gitlab.com/octo/hello.git", host: "github.com"},
		{name: "a path", remote: "/srv/git/hello.git", host: "github.com"},
		{name: "too deep", remote: "https://github.com/octo/hello/extra", host: "github.com"},
		{name: "file url", remote: "file:///github.com/octo/hello", host: "github.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := repoFromRemote(tt.remote, tt.host)
			if got != tt.want || ok != tt.ok {
				t.Errorf("repoFromRemote(%q, %q) = %q, %v; want %q, %v", tt.remote, tt.host, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestConsoleRunURL(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ base, id, want string }{
		{"https://console.example/", "20261205-010203-abcdef", "https://console.example/runs/20261205-010203-abcdef"},
		{"http://127.0.0.1:8080", "a/b", "http://127.0.0.1:8080/runs/a%2Fb"},
	} {
		if got := consoleRunURL(tt.base, tt.id); got != tt.want {
			t.Errorf("consoleRunURL(%q, %q) = %q, want %q", tt.base, tt.id, got, tt.want)
		}
	}
}
