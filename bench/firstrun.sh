#!/usr/bin/env bash
# The first confined `go test` in a fresh $CORE_HOME against a bare `go test`
# with the user's warm caches, side by side in one run, for a stdlib-only
# module and for a module with dependencies (testify, cobra, zerolog,
# go-github: from the module cache core's own build filled).
#
# Each trial copies the module to a fresh directory, as a session's clone is,
# so that both sides compile the module's own packages and find the standard
# library and the dependencies in the user's caches. The confined side is
# the whole `core sandbox run -- go test -count=1 ./...` process in a fresh
# $CORE_HOME: the probe, the module download, the build and the tests. What
# core keeps in the user's cache directory (~/.cache/core: the walk of the
# system directories behind the masks, the view of the user's build outputs
# linked for confined builds) is there from the run before, as it is on a
# machine core ran on; one more line shows a run without it.
# Prints each trial, the medians and the ratios. Target: <= 1.5x.
# TRIALS (default 3) sets the number of trials per side.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
trials=${TRIALS:-3}
tmp=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "keeping $tmp" || trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

go build -o "$tmp/core" ./cmd/core

# stdlib: a server, a client, JSON and their tests.
std=$tmp/std
mkdir -p "$std/api" "$std/store"
cat >"$std/go.mod" <<'EOF'
module example.com/std

go 1.24
EOF
cat >"$std/api/api.go" <<'EOF'
// Package api serves items as JSON.
package api

import (
	"encoding/json"
	"net/http"
	"strings"

	"example.com/std/store"
)

// Handler serves the store.
func Handler(s *store.Store) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/items/", func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/items/")
		v, ok := s.Get(name)
		if !ok {
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(map[string]string{"name": name, "value": v})
	})
	return mux
}
EOF
cat >"$std/api/api_test.go" <<'EOF'
package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"example.com/std/store"
)

func TestGet(t *testing.T) {
	s := store.New()
	s.Put("a", "1")
	srv := httptest.NewServer(Handler(s))
	defer srv.Close()
	res, err := http.Get(srv.URL + "/items/a")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var got map[string]string
	if err := json.NewDecoder(res.Body).Decode(&got); err != nil || got["value"] != "1" {
		t.Fatalf("got %v, %v", got, err)
	}
}
EOF
cat >"$std/store/store.go" <<'EOF'
// Package store keeps values by name.
package store

import "sync"

// Store is a map safe for concurrent use.
type Store struct {
	mu sync.Mutex
	m  map[string]string
}

// New returns an empty store.
func New() *Store { return &Store{m: map[string]string{}} }

// Put sets name.
func (s *Store) Put(name, v string) { s.mu.Lock(); s.m[name] = v; s.mu.Unlock() }

// Get returns name's value.
func (s *Store) Get(name string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[name]
	return v, ok
}
EOF
cat >"$std/store/store_test.go" <<'EOF'
package store

import (
	"fmt"
	"testing"
)

func TestPutGet(t *testing.T) {
	s := New()
	for i := range 100 {
		s.Put(fmt.Sprint(i), fmt.Sprint(i*i))
	}
	if v, _ := s.Get("9"); v != "81" {
		t.Fatalf("got %q", v)
	}
}
EOF

# dependencies: the versions core's own go.mod requires, so that they are
# in the module cache already.
deps=$tmp/deps
mkdir -p "$deps/cli"
ver() { awk -v m="$1" '$1 == m { print $2 }' "$root/go.mod"; }
cat >"$deps/go.mod" <<EOF
module example.com/deps

go 1.24

require (
	github.com/google/go-github/v62 $(ver github.com/google/go-github/v62)
	github.com/rs/zerolog $(ver github.com/rs/zerolog)
	github.com/spf13/cobra $(ver github.com/spf13/cobra)
	github.com/stretchr/testify $(ver github.com/stretchr/testify)
)
EOF
cat >"$deps/cli/cli.go" <<'EOF'
// Package cli is a command that lists a repository's issues.
package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
)

// New returns the command.
func New(client *github.Client) *cobra.Command {
	log := zerolog.New(os.Stderr)
	return &cobra.Command{
		Use:  "issues OWNER REPO",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			issues, _, err := client.Issues.ListByRepo(context.Background(), args[0], args[1], nil)
			if err != nil {
				return err
			}
			log.Info().Int("issues", len(issues)).Msg("listed")
			for _, i := range issues {
				fmt.Fprintln(cmd.OutOrStdout(), i.GetNumber(), i.GetTitle())
			}
			return nil
		},
	}
}
EOF
cat >"$deps/cli/cli_test.go" <<'EOF'
package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"
)

func TestList(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`[{"number":7,"title":"seven"}]`))
	}))
	defer srv.Close()
	c := github.NewClient(nil)
	c.BaseURL, _ = url.Parse(srv.URL + "/")
	cmd := New(c)
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"o", "r"})
	require.NoError(t, cmd.Execute())
	require.Equal(t, "7 seven\n", out.String())
}
EOF
(cd "$deps" && GOFLAGS=-mod=mod GOSUMDB=off go mod tidy)

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
now() { date +%s.%N; }

for name in std deps; do
	src=$tmp/$name
	# The user's caches are warm: they have built and tested this module.
	(cd "$src" && go test ./... >/dev/null)
	cold=
	if [ "$name" = std ]; then
		# A machine core has never run on as this user: nothing kept in
		# the user's cache directory (the walk of the system directories
		# behind the masks, the view of linked build outputs).
		ws=$tmp/ws-$name-cold
		cp -r "$src" "$ws"
		rm -rf "${XDG_CACHE_HOME:-$HOME/.cache}/core"
		t0=$(now)
		(cd "$ws" && CORE_HOME=$tmp/home-cold "$tmp/core" sandbox run -- go test -count=1 ./... >"$tmp/out" 2>&1) || { cat "$tmp/out"; exit 1; }
		t1=$(now)
		cold=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
	fi
	: >"$tmp/$name.bare"
	: >"$tmp/$name.confined"
	for i in $(seq "$trials"); do
		ws=$tmp/ws-$name-bare-$i
		cp -r "$src" "$ws"
		t0=$(now)
		(cd "$ws" && go test -count=1 ./... >/dev/null)
		t1=$(now)
		awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >>"$tmp/$name.bare"

		ws=$tmp/ws-$name-confined-$i
		cp -r "$src" "$ws"
		home=$tmp/home-$name-$i
		t0=$(now)
		(cd "$ws" && CORE_HOME=$home "$tmp/core" sandbox run -- go test -count=1 ./... >"$tmp/out" 2>&1) || { cat "$tmp/out"; exit 1; }
		t1=$(now)
		awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >>"$tmp/$name.confined"
		printf '%s trial %d: bare %.2f s, confined in a fresh CORE_HOME %.2f s\n' "$name" "$i" \
			"$(tail -1 "$tmp/$name.bare")" "$(tail -1 "$tmp/$name.confined")"
	done
	b=$(median <"$tmp/$name.bare")
	c=$(median <"$tmp/$name.confined")
	printf '%s: first confined go test in a fresh CORE_HOME %.2f s, bare with warm caches %.2f s, ratio %.2fx (target <= 1.5x)\n' \
		"$name" "$c" "$b" "$(awk -v c="$c" -v b="$b" 'BEGIN { print c / b }')"
	if [ -n "$cold" ]; then
		printf '%s: the same on a machine core never ran on as this user (nothing in ~/.cache/core yet): %.2f s, ratio %.2fx\n' \
			"$name" "$cold" "$(awk -v c="$cold" -v b="$b" 'BEGIN { print c / b }')"
	fi
done
