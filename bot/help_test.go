package bot

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHelp(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	n := f.addIssue(t)
	cid := f.addComment(t, n, "alice", "/core help")
	f.deliver(t, "issue_comment", "h-1", commentPayload(t, "alice", "User", n, cid, "/core help", false))
	f.settle(t)
	require.Len(t, botComments(f, n), 1)
	assert.Contains(t, botComments(f, n)[0].Body, "`/core fix [instruction]`")

	// An unknown command gets the help too.
	cid = f.addComment(t, n, "alice", "/core dance")
	f.deliver(t, "issue_comment", "h-9", commentPayload(t, "alice", "User", n, cid, "/core dance", false))
	f.settle(t)
	require.Len(t, botComments(f, n), 2)
	assert.Contains(t, botComments(f, n)[1].Body, "unknown command `/core dance`")
	assert.Contains(t, botComments(f, n)[1].Body, "`/core fix [instruction]`")
}
