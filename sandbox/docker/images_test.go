package docker

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/moby/moby/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseToolchainImages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     map[string]string
		err      string
	}{
		{name: "defaults", in: "", want: DefaultToolchainImages()},
		{name: "over the defaults", in: "node=ghcr.io/o/node:22\npython=none",
			want: map[string]string{"python": "", "node": "ghcr.io/o/node:22", "rust": DefaultToolchainImages()["rust"]}},
		{name: "go is core's own image", in: "go=golang:1", err: `ecosystem python, node or rust (e.g. python=python:3.13-slim), got "go=golang:1"`},
		{name: "a tool is not an ecosystem", in: "pytest=x", err: `got "pytest=x"`},
		{name: "no image", in: "python=", err: `got "python="`},
		{name: "no pair", in: "python:3", err: `got "python:3"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseToolchainImages(tt.in)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// engine is a Docker engine's API over HTTP that knows images (name →
// its inspect JSON) and records the names it was asked about.
func engine(t *testing.T, images map[string]string) (*client.Client, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// GET /v1.NN/images/{name}/json, the name's own slashes kept.
		_, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		name, ok := strings.CutSuffix(strings.TrimPrefix(rest, "images/"), "/json")
		if r.Method != http.MethodGet || !ok || !strings.HasPrefix(rest, "images/") {
			http.Error(w, `{"message":"not served here"}`, http.StatusNotImplemented)
			return
		}
		mu.Lock()
		asked = append(asked, name)
		mu.Unlock()
		body, known := images[name]
		if !known {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"message":"No such image: %s"}`, name)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	cli, err := client.New(client.WithHost("tcp://"+strings.TrimPrefix(srv.URL, "http://")), client.WithHTTPClient(srv.Client()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = cli.Close() })
	return cli, &asked
}

// TestDigests: each image the checks ran in is named by the digest the
// engine reports: a pulled image's repository digest, an image built here
// its ID; core's own image too; an image the engine has not got is left
// out and not pulled; each image is asked about once.
func TestDigests(t *testing.T) {
	t.Parallel()
	cli, asked := engine(t, map[string]string{
		"python:3.13-slim": `{"Id":"sha256:1111","RepoDigests":["python@sha256:aaaa","mirror/python@sha256:aaaa"]}`,
		"core:dev":         `{"Id":"sha256:2222","RepoDigests":[]}`,
	})
	d := &Backend{cli: cli, image: "core:dev", st: Settings{ToolchainImages: map[string]string{"python": "python:3.13-slim", "node": "node:22-slim"}}}
	got := d.Digests(t.Context(), [][]string{{"pytest", "-q"}, {"python3", "-m", "pytest"}, {"go", "test", "./..."}, {"npm", "test"}, {}})
	assert.Equal(t, map[string]string{"python:3.13-slim": "python@sha256:aaaa", "core:dev": "sha256:2222"}, got)
	assert.ElementsMatch(t, []string{"python:3.13-slim", "core:dev", "node:22-slim"}, *asked, "once each, and nothing pulled")
	assert.Empty(t, (&Backend{image: "core:dev"}).Digests(t.Context(), [][]string{{"go", "test"}}), "an offline backend names none")
}
