package ghfake

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// The GraphQL endpoint answers the viewer's login (a query mentioning
// viewer and not reviewThreads), a pull request's review threads, and the
// mutations that take a pull request out of draft and back
// (github_graphql_ready.go). It
// does not parse GraphQL: a query mentioning reviewThreads is answered
// with the fields below whatever it selects, its arguments are read from
// the variables owner, name, number and cursor, and the page sizes from
// "reviewThreads(first: N" and "comments(first: N" (or the variable
// first). Anything else gets a GraphQL error.

type gqlError struct {
	Type    string   `json:"type,omitempty"`
	Path    []string `json:"path,omitempty"`
	Message string   `json:"message"`
}

type gqlAnswer struct {
	Data   any        `json:"data,omitempty"`
	Errors []gqlError `json:"errors,omitempty"`
}

type gqlPageInfo struct {
	HasNextPage bool    `json:"hasNextPage"`
	EndCursor   *string `json:"endCursor"`
}

type gqlAuthor struct {
	Login string `json:"login"`
}

type gqlComment struct {
	Author    gqlAuthor `json:"author"`
	Body      string    `json:"body"`
	CreatedAt string    `json:"createdAt"`
	URL       string    `json:"url"`
}

type gqlComments struct {
	Nodes []gqlComment `json:"nodes"`
}

type gqlThread struct {
	IsResolved bool        `json:"isResolved"`
	IsOutdated bool        `json:"isOutdated"`
	Path       string      `json:"path"`
	Line       *int        `json:"line"`
	Comments   gqlComments `json:"comments"`
}

type gqlThreads struct {
	PageInfo gqlPageInfo `json:"pageInfo"`
	Nodes    []gqlThread `json:"nodes"`
}

type gqlPull struct {
	ReviewThreads gqlThreads `json:"reviewThreads"`
}

type gqlRepo struct {
	PullRequest *gqlPull `json:"pullRequest"`
}

var (
	threadsFirst  = regexp.MustCompile(`reviewThreads\s*\(\s*first\s*:\s*(\d+)`)
	commentsFirst = regexp.MustCompile(`comments\s*\(\s*first\s*:\s*(\d+)`)
)

// POST /graphql and /api/graphql
func (g *GitHub) graphql(c *apiCall) {
	var in struct {
		Query     string `json:"query"`
		Variables struct {
			Owner  string  `json:"owner"`
			Name   string  `json:"name"`
			Number int     `json:"number"`
			Cursor *string `json:"cursor"`
			First  int     `json:"first"`
			ID     string  `json:"id"`
		} `json:"variables"`
	}
	if !c.decode(&in) {
		return
	}
	if strings.Contains(in.Query, "viewer") && !strings.Contains(in.Query, "reviewThreads") {
		c.json(http.StatusOK, gqlAnswer{Data: map[string]gqlAuthor{"viewer": {Login: c.login}}})
		return
	}
	for mutation, draft := range map[string]bool{"markPullRequestReadyForReview": false, "convertPullRequestToDraft": true} {
		if strings.Contains(in.Query, mutation) {
			g.setDraft(c, mutation, in.Variables.ID, draft)
			return
		}
	}
	if !strings.Contains(in.Query, "reviewThreads") {
		c.json(http.StatusOK, gqlAnswer{Errors: []gqlError{{Message: "unsupported query"}}})
		return
	}
	v := in.Variables
	first := firstArg(threadsFirst, in.Query, v.First, 100)
	start := 0
	if v.Cursor != nil && *v.Cursor != "" {
		n, ok := decodeCursor(*v.Cursor)
		if !ok {
			c.json(http.StatusOK, gqlAnswer{Errors: []gqlError{{Message: fmt.Sprintf("`%s` does not appear to be a valid cursor.", *v.Cursor)}}})
			return
		}
		start = n
	}
	r := g.repo(v.Owner, v.Name)
	if r == nil || !r.can(c.login, permRead) {
		c.json(http.StatusOK, gqlAnswer{
			Data: map[string]json.RawMessage{"repository": json.RawMessage("null")},
			Errors: []gqlError{{Type: "NOT_FOUND", Path: []string{"repository"},
				Message: fmt.Sprintf("Could not resolve to a Repository with the name '%s/%s'.", v.Owner, v.Name)}},
		})
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if is := r.issues[v.Number]; is == nil || is.pull == nil {
		c.json(http.StatusOK, gqlAnswer{
			Data: map[string]gqlRepo{"repository": {}},
			Errors: []gqlError{{Type: "NOT_FOUND", Path: []string{"repository", "pullRequest"},
				Message: fmt.Sprintf("Could not resolve to a PullRequest with the number of %d.", v.Number)}},
		})
		return
	}
	k := pullKey{repo: r, pull: v.Number}
	all := g.ext.threads[k]
	lo := min(start, len(all))
	hi := min(lo+first, len(all))
	page := gqlThreads{Nodes: []gqlThread{}, PageInfo: gqlPageInfo{HasNextPage: hi < len(all)}}
	if hi > lo {
		page.PageInfo.EndCursor = ptr(encodeCursor(hi))
	}
	perThread := firstArg(commentsFirst, in.Query, 0, 100)
	for _, th := range all[lo:hi] {
		page.Nodes = append(page.Nodes, r.gqlThreadLocked(k, th, perThread))
	}
	c.json(http.StatusOK, gqlAnswer{Data: map[string]gqlRepo{
		"repository": {PullRequest: &gqlPull{ReviewThreads: page}},
	}})
}

// gqlThreadLocked is a thread as GraphQL sends it, with at most n
// comments. Callers hold g.mu.
func (r *Repo) gqlThreadLocked(k pullKey, th *threadState, n int) gqlThread {
	out := gqlThread{
		IsResolved: th.Resolved, IsOutdated: th.Outdated, Path: th.Comments[0].Path,
		Comments: gqlComments{Nodes: []gqlComment{}},
	}
	if !th.Outdated {
		out.Line = ptr(th.Comments[0].Line)
	}
	for i := range th.Comments[:min(n, len(th.Comments))] {
		w := r.wireReviewCommentLocked(k, th, i)
		out.Comments.Nodes = append(out.Comments.Nodes, gqlComment{
			Author: gqlAuthor{Login: w.User.Login}, Body: w.Body, CreatedAt: w.CreatedAt, URL: w.HTMLURL,
		})
	}
	return out
}

// firstArg reads a page size from the query text, else the variable, else
// def; GitHub caps pages at 100.
func firstArg(re *regexp.Regexp, query string, variable, def int) int {
	n := def
	if m := re.FindStringSubmatch(query); m != nil {
		n, _ = strconv.Atoi(m[1])
	} else if variable > 0 {
		n = variable
	}
	return min(max(n, 1), 100)
}

func encodeCursor(n int) string {
	return base64.StdEncoding.EncodeToString([]byte("cursor:v2:" + strconv.Itoa(n)))
}

func decodeCursor(s string) (int, bool) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return 0, false
	}
	rest, ok := strings.CutPrefix(string(raw), "cursor:v2:")
	n, err := strconv.Atoi(rest)
	return n, ok && err == nil && n >= 0
}
