package ghfake

import (
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"strings"
	"time"
)

// The wire shapes below follow GitHub's REST API reference rather than
// go-github's types, so the client is checked against the protocol and not
// against itself. Fields GitHub always sends are never omitted.

type apiError struct {
	Message          string       `json:"message"`
	Errors           []fieldError `json:"errors,omitempty"`
	DocumentationURL string       `json:"documentation_url"`
	Status           string       `json:"status"`
}

type fieldError struct {
	Resource string `json:"resource"`
	Field    string `json:"field,omitempty"`
	Code     string `json:"code"`
	Message  string `json:"message,omitempty"`
}

// WireUser is a user or an organisation as GitHub's API sends it.
type WireUser struct {
	Login     string `json:"login"`
	ID        int64  `json:"id"`
	NodeID    string `json:"node_id"`
	Type      string `json:"type"`
	SiteAdmin bool   `json:"site_admin"`
	URL       string `json:"url"`
	HTMLURL   string `json:"html_url"`
}

type wirePerms struct {
	Admin    bool `json:"admin"`
	Maintain bool `json:"maintain"`
	Push     bool `json:"push"`
	Triage   bool `json:"triage"`
	Pull     bool `json:"pull"`
}

type wireRepo struct {
	ID            int64      `json:"id"`
	NodeID        string     `json:"node_id"`
	Name          string     `json:"name"`
	FullName      string     `json:"full_name"`
	Owner         WireUser   `json:"owner"`
	Private       bool       `json:"private"`
	Visibility    string     `json:"visibility"`
	Fork          bool       `json:"fork"`
	Parent        *wireRepo  `json:"parent,omitempty"`
	Source        *wireRepo  `json:"source,omitempty"`
	DefaultBranch string     `json:"default_branch"`
	URL           string     `json:"url"`
	HTMLURL       string     `json:"html_url"`
	CloneURL      string     `json:"clone_url"`
	Permissions   *wirePerms `json:"permissions,omitempty"`
	CreatedAt     string     `json:"created_at"`
	UpdatedAt     string     `json:"updated_at"`
	PushedAt      string     `json:"pushed_at"`
}

type wireBranchCommit struct {
	SHA string `json:"sha"`
	URL string `json:"url"`
}

type wireBranch struct {
	Name      string           `json:"name"`
	Commit    wireBranchCommit `json:"commit"`
	Protected bool             `json:"protected"`
}

// wireCollaborator is a user as the collaborator endpoints send it.
type wireCollaborator struct {
	WireUser
	Permissions wirePerms `json:"permissions"`
	RoleName    string    `json:"role_name"`
}

type wirePermission struct {
	Permission string           `json:"permission"`
	RoleName   string           `json:"role_name"`
	User       wireCollaborator `json:"user"`
}

type wireLabel struct {
	ID          int64   `json:"id"`
	NodeID      string  `json:"node_id"`
	URL         string  `json:"url"`
	Name        string  `json:"name"`
	Color       string  `json:"color"`
	Default     bool    `json:"default"`
	Description *string `json:"description"`
}

type wireReactions struct {
	URL        string `json:"url"`
	TotalCount int    `json:"total_count"`
	PlusOne    int    `json:"+1"`
	MinusOne   int    `json:"-1"`
	Laugh      int    `json:"laugh"`
	Confused   int    `json:"confused"`
	Heart      int    `json:"heart"`
	Hooray     int    `json:"hooray"`
	Rocket     int    `json:"rocket"`
	Eyes       int    `json:"eyes"`
}

type wireReaction struct {
	ID        int64    `json:"id"`
	NodeID    string   `json:"node_id"`
	User      WireUser `json:"user"`
	Content   string   `json:"content"`
	CreatedAt string   `json:"created_at"`
}

type wireIssuePR struct {
	URL      string  `json:"url"`
	HTMLURL  string  `json:"html_url"`
	DiffURL  string  `json:"diff_url"`
	PatchURL string  `json:"patch_url"`
	MergedAt *string `json:"merged_at"`
}

type wireIssue struct {
	ID                int64         `json:"id"`
	NodeID            string        `json:"node_id"`
	URL               string        `json:"url"`
	HTMLURL           string        `json:"html_url"`
	CommentsURL       string        `json:"comments_url"`
	Number            int           `json:"number"`
	State             string        `json:"state"`
	Title             string        `json:"title"`
	Body              *string       `json:"body"`
	User              WireUser      `json:"user"`
	Labels            []wireLabel   `json:"labels"`
	Assignees         []WireUser    `json:"assignees"`
	Locked            bool          `json:"locked"`
	Comments          int           `json:"comments"`
	PullRequest       *wireIssuePR  `json:"pull_request,omitempty"`
	ClosedAt          *string       `json:"closed_at"`
	CreatedAt         string        `json:"created_at"`
	UpdatedAt         string        `json:"updated_at"`
	AuthorAssociation string        `json:"author_association"`
	Reactions         wireReactions `json:"reactions"`
}

type wireComment struct {
	ID                int64         `json:"id"`
	NodeID            string        `json:"node_id"`
	URL               string        `json:"url"`
	HTMLURL           string        `json:"html_url"`
	IssueURL          string        `json:"issue_url"`
	Body              string        `json:"body"`
	User              WireUser      `json:"user"`
	CreatedAt         string        `json:"created_at"`
	UpdatedAt         string        `json:"updated_at"`
	AuthorAssociation string        `json:"author_association"`
	Reactions         wireReactions `json:"reactions"`
}

type wirePullBranch struct {
	Label string    `json:"label"`
	Ref   string    `json:"ref"`
	SHA   string    `json:"sha"`
	User  WireUser  `json:"user"`
	Repo  *wireRepo `json:"repo"`
}

type wirePull struct {
	ID                  int64          `json:"id"`
	NodeID              string         `json:"node_id"`
	URL                 string         `json:"url"`
	HTMLURL             string         `json:"html_url"`
	DiffURL             string         `json:"diff_url"`
	PatchURL            string         `json:"patch_url"`
	IssueURL            string         `json:"issue_url"`
	Number              int            `json:"number"`
	State               string         `json:"state"`
	Locked              bool           `json:"locked"`
	Title               string         `json:"title"`
	User                WireUser       `json:"user"`
	Body                *string        `json:"body"`
	Labels              []wireLabel    `json:"labels"`
	CreatedAt           string         `json:"created_at"`
	UpdatedAt           string         `json:"updated_at"`
	ClosedAt            *string        `json:"closed_at"`
	MergedAt            *string        `json:"merged_at"`
	Draft               bool           `json:"draft"`
	Head                wirePullBranch `json:"head"`
	Base                wirePullBranch `json:"base"`
	AuthorAssociation   string         `json:"author_association"`
	Merged              bool           `json:"merged"`
	Mergeable           *bool          `json:"mergeable"`
	Comments            int            `json:"comments"`
	MaintainerCanModify bool           `json:"maintainer_can_modify"`
}

// wireTime formats a timestamp as GitHub does: "2024-05-01T12:00:00Z".
func wireTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func wireTimePtr(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := wireTime(t)
	return &s
}

func wireText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// nodeID makes a GraphQL-style node id for a kind and database id.
func nodeID(kind string, id int64) string {
	return kind + "_" + base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%d", id))
}

// SetUserID makes id the account id of login from now on, wherever the
// double names login (a comment's author, GET /user, a collaborator):
// another account that took over login once its owner renamed theirs and
// freed it, or that owner under a new login (the id they always had).
func (g *GitHub) SetUserID(login string, id int64) {
	g.idMu.Lock()
	defer g.idMu.Unlock()
	if g.userIDs == nil {
		g.userIDs = map[string]int64{}
	}
	g.userIDs[strings.ToLower(login)] = id
}

// accountID is the account id of login: SetUserID's, else userID's.
func (g *GitHub) accountID(login string) int64 {
	g.idMu.Lock()
	defer g.idMu.Unlock()
	if id, ok := g.userIDs[strings.ToLower(login)]; ok {
		return id
	}
	return userID(login)
}

// userID derives a stable database id from a login.
func userID(login string) int64 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(strings.ToLower(login)))
	return int64(h.Sum32()%9000000) + 1000
}

func (g *GitHub) wireUser(login string) WireUser {
	typ := "User"
	if strings.HasSuffix(login, "[bot]") {
		typ = "Bot"
	}
	id := g.accountID(login)
	return WireUser{
		Login: login, ID: id, NodeID: nodeID("U", id), Type: typ,
		URL: g.APIURL() + "/users/" + login, HTMLURL: g.URL + "/" + login,
	}
}
