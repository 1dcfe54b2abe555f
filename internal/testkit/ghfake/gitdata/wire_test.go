package gitdata

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIdentRoundTrip: an API person becomes git's "Name <email> unix tz"
// and comes back the same, its offset kept; bad ones are refused.
func TestIdentRoundTrip(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 5, 6, 0, 0, 0, time.UTC)
	ident, err := gitIdent(wireGitPerson{Name: "core", Email: "core@users.noreply.github.com", Date: "2026-12-05T07:30:00+01:30"}, "x", now)
	require.NoError(t, err)
	assert.Equal(t, "core <core@users.noreply.github.com> 1796450400 +0130", ident)
	assert.Equal(t, wireGitPerson{Name: "core", Email: "core@users.noreply.github.com", Date: "2026-12-05T07:30:00+01:30"}, wirePerson(ident))
	ident, err = gitIdent(wireGitPerson{}, "alice", now)
	require.NoError(t, err)
	assert.Equal(t, "alice <alice@users.noreply.github.com> 1796450400 +0000", ident, "the caller, now, by default")
	for _, bad := range []wireGitPerson{{Name: "a<b"}, {Email: "a\nb"}, {Date: "yesterday"}} {
		_, err := gitIdent(bad, "x", now)
		assert.Error(t, err, "%+v", bad)
	}
}
