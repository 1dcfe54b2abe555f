// Package ghapps is the GitHub App side of the GitHub double
// (internal/testkit/ghfake): it adds to a double the App manifest flow, by
// which a page registers a new GitHub App, and records the Apps made.
//
// The rest of the App side (apps, installations and their tokens, the
// OAuth web and device flows) is still served by ghfake itself.
package ghapps

import (
	"sync"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

// Apps is the App side of one GitHub double.
type Apps struct {
	gh *ghfake.GitHub

	mu sync.Mutex
	// manifests is the App manifest flow's state.
	manifests manifestState
}

// New adds the App side to the double gh: the manifest flow's pages
// (POST /settings/apps/new, /organizations/ORG/settings/apps/new and the
// page's button) and POST /app-manifests/{code}/conversions.
func New(gh *ghfake.GitHub) *Apps {
	a := &Apps{gh: gh}
	// The manifest flow's code is its own credential.
	gh.HandleOwnAuthAPI("POST /app-manifests/{code}/conversions", a.convertManifest)
	gh.HandleWeb(a.serveManifestPages)
	return a
}
