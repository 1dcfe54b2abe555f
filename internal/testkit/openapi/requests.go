package openapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

// RequireValid checks every API request g recorded whose path starts with
// one of prefixes (every request when none is given) and whose operation
// takes a JSON body against GitHub's description, failing the test for
// each invalid one. It returns how many it checked.
func RequireValid(t testing.TB, d *Description, g *ghfake.GitHub, prefixes ...string) int {
	t.Helper()
	checked := 0
	for _, r := range g.Requests() {
		if r.Method == http.MethodGet || strings.HasPrefix(r.Path, "/git/") || !hasPrefix(r.Path, prefixes) {
			continue
		}
		if d.BodySchema(r.Method, r.Path) == nil {
			continue
		}
		checked++
		if err := d.Validate(r.Method, r.Path, r.Body); err != nil {
			t.Errorf("an invalid request: %v", err)
		}
	}
	return checked
}

func hasPrefix(path string, prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}
