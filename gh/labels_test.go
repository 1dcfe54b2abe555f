package gh

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

func TestLabels(t *testing.T) {
	t.Parallel()
	c, g, _ := newTestClient(t)
	n, err := g.AddIssue("octo", "hello", ghfake.Issue{Title: "t", Labels: []string{"bug"}})
	require.NoError(t, err)
	ctx := t.Context()

	require.NoError(t, c.AddLabels(ctx, "octo", "hello", n, "core:claimed", "bug"))
	require.NoError(t, c.AddLabels(ctx, "octo", "hello", n), "no labels is a no-op")
	is, _ := g.Issue("octo", "hello", n)
	assert.Equal(t, []string{"bug", "core:claimed"}, is.Labels)

	require.NoError(t, c.RemoveLabel(ctx, "octo", "hello", n, "bug"))
	require.NoError(t, c.RemoveLabel(ctx, "octo", "hello", n, "bug"), "already gone")
	is, _ = g.Issue("octo", "hello", n)
	assert.Equal(t, []string{"core:claimed"}, is.Labels)

	require.NoError(t, g.SetPermission("octo", "hello", "core-bot", "read"))
	err = c.AddLabels(ctx, "octo", "hello", n, "x")
	assert.ErrorContains(t, err, "label #1 in octo/hello with [x]")
	assert.ErrorContains(t, err, "403")
	assert.ErrorContains(t, c.RemoveLabel(ctx, "octo", "hello", n, "core:claimed"), `remove label "core:claimed" from #1 in octo/hello`)
}

func TestListOpenIssues(t *testing.T) {
	t.Parallel()
	c, g, repo := newTestClient(t)
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	// Created newest first, so only sorting puts them oldest first.
	for i := range 130 {
		labels := []string{"core:forge"}
		if i%2 == 1 {
			labels = append(labels, "ready")
		}
		_, err := g.AddIssue("octo", "hello", ghfake.Issue{
			Title: fmt.Sprintf("brief %d\u200b", i), User: "alice", Labels: labels,
			CreatedAt: start.Add(time.Duration(130-i) * time.Hour),
		})
		require.NoError(t, err)
	}
	_, err := g.AddIssue("octo", "hello", ghfake.Issue{Title: "closed", Labels: []string{"core:forge"}, State: "closed"})
	require.NoError(t, err)
	_, err = repo.Commit(t.Context(), "fix", "fix", map[string]string{"b.txt": "b\n"})
	require.NoError(t, err)
	pr, err := g.AddPull(t.Context(), "octo", "hello", ghfake.Pull{Title: "a pull", Head: "fix", CreatedAt: start})
	require.NoError(t, err)

	tests := []struct {
		name      string
		labels    []string
		wantLen   int
		wantFirst string
	}{
		{name: "all open, pulls too", wantLen: 131, wantFirst: "a pull"},
		{name: "one label", labels: []string{"core:forge"}, wantLen: 130, wantFirst: "brief 129"},
		{name: "all labels must match", labels: []string{"core:forge", "ready"}, wantLen: 65, wantFirst: "brief 129"},
		{name: "no match", labels: []string{"nothing"}, wantLen: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			list, err := c.ListOpenIssues(t.Context(), "octo", "hello", tt.labels)
			require.NoError(t, err)
			require.Len(t, list, tt.wantLen)
			if tt.wantLen == 0 {
				return
			}
			assert.Equal(t, tt.wantFirst, list[0].Title, "oldest first, sanitized")
			for i := 1; i < len(list); i++ {
				assert.False(t, list[i].CreatedAt.Before(list[i-1].CreatedAt), "sorted at %d", i)
			}
		})
	}
	list, err := c.ListOpenIssues(t.Context(), "octo", "hello", nil)
	require.NoError(t, err)
	assert.Equal(t, &IssueSummary{Number: pr, Title: "a pull", IsPullRequest: true, CreatedAt: start, Author: "octo"}, list[0])
	assert.Equal(t, []string{"core:forge", "ready"}, list[1].Labels)
	assert.Equal(t, "alice", list[1].Author)
	assert.False(t, list[1].IsPullRequest)
}

func TestReactionsAndComments(t *testing.T) {
	t.Parallel()
	c, g, _ := newTestClient(t)
	n, err := g.AddIssue("octo", "hello", ghfake.Issue{Title: "t"})
	require.NoError(t, err)
	at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []int64
	for i := range 105 {
		id, err := g.AddComment("octo", "hello", n, ghfake.Comment{User: "bob", Body: fmt.Sprintf("/core fix %d<!-- marker -->", i), CreatedAt: at.Add(time.Duration(i) * time.Minute)})
		require.NoError(t, err)
		ids = append(ids, id)
	}
	ctx := t.Context()

	cs, err := c.ListComments(ctx, "octo", "hello", n)
	require.NoError(t, err)
	require.Len(t, cs, 105, "both pages")
	assert.Equal(t, Comment{ID: ids[0], Author: "bob", AuthorID: g.User("bob").ID, Body: "/core fix 0<!-- marker -->", CreatedAt: at, UpdatedAt: at}, cs[0], "bodies as written")
	assert.Equal(t, ids[104], cs[104].ID)
	_, err = c.ListComments(ctx, "octo", "hello", 99)
	assert.ErrorContains(t, err, "list comments of #99 in octo/hello")

	require.NoError(t, c.AddReaction(ctx, "octo", "hello", ids[3], "eyes"))
	require.NoError(t, c.AddReaction(ctx, "octo", "hello", ids[3], "eyes"), "reacting twice is fine")
	reactions := g.CommentReactions("octo", "hello", ids[3])
	require.Len(t, reactions, 1)
	assert.Equal(t, "eyes", reactions[0].Content)
	assert.Equal(t, "core-bot", reactions[0].User)
	assert.ErrorContains(t, c.AddReaction(ctx, "octo", "hello", ids[3], "party"), `react "party" to comment`)

	require.NoError(t, c.AddIssueReaction(ctx, "octo", "hello", n, "rocket"))
	issueReactions := g.Reactions("octo", "hello", n)
	require.Len(t, issueReactions, 1)
	assert.Equal(t, "rocket", issueReactions[0].Content)
	assert.ErrorContains(t, c.AddIssueReaction(ctx, "octo", "hello", 99, "+1"), `react "+1" to #99 in octo/hello`)
}

func TestLabelExists(t *testing.T) {
	t.Parallel()
	c, g, _ := newTestClient(t)
	ctx := t.Context()
	ok, err := c.LabelExists(ctx, "octo", "hello", "core:fix")
	require.NoError(t, err)
	assert.False(t, ok, "no such label yet")
	n, err := g.AddIssue("octo", "hello", ghfake.Issue{Title: "t"})
	require.NoError(t, err)
	require.NoError(t, c.AddLabels(ctx, "octo", "hello", n, "core:fix"))
	ok, err = c.LabelExists(ctx, "octo", "hello", "core:fix")
	require.NoError(t, err)
	assert.True(t, ok, "made on first use")
}
