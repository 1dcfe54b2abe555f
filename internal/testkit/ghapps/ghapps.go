// Package ghapps is the GitHub App side of the GitHub double
// (internal/testkit/ghfake), added to a double through its extension
// point: apps and their JWTs, installations and their tokens, user-to-server
// tokens, the OAuth web and device flows, and the App manifest flow, by
// which a page registers a new GitHub App.
package ghapps

import (
	"encoding/base64"
	"fmt"
	"time"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

// New adds the App side to the double gh: the Apps API (GET /app,
// /app/installations, their access tokens, GET
// /repos/{owner}/{repo}/installation), what its tokens may list (GET
// /user/installations, /installation/repositories), the OAuth pages
// (/login/oauth/authorize, /login/oauth/access_token, /login/device/code)
// and the manifest flow's (POST /settings/apps/new,
// /organizations/ORG/settings/apps/new and the page's button, POST
// /app-manifests/{code}/conversions).
func New(gh *ghfake.GitHub) *Apps {
	a := &Apps{gh: gh}
	a.addAppAPI()
	// The manifest flow's code is its own credential.
	gh.HandleOwnAuthAPI("POST /app-manifests/{code}/conversions", a.convertManifest)
	gh.HandleWeb(a.serveManifestPages)
	return a
}

// ghNow is the double's clock, truncated to GitHub's one-second
// timestamps.
func ghNow() time.Time { return time.Now().UTC().Truncate(time.Second) }

func wireTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// nodeID is a GraphQL node id as the double makes them.
func nodeID(kind string, id int64) string {
	return kind + "_" + base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%d", id))
}
