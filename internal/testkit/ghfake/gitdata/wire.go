package gitdata

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The Git Data API's objects as GitHub sends them (docs.github.com/rest/git).

type wireGitBlob struct {
	SHA      string `json:"sha"`
	NodeID   string `json:"node_id"`
	URL      string `json:"url"`
	Size     int    `json:"size"`
	Content  string `json:"content"`
	Encoding string `json:"encoding"`
}

type wireGitTreeEntry struct {
	Path string `json:"path"`
	Mode string `json:"mode"`
	Type string `json:"type"`
	SHA  string `json:"sha"`
	Size *int   `json:"size,omitempty"`
	URL  string `json:"url"`
}

type wireGitTree struct {
	SHA       string             `json:"sha"`
	URL       string             `json:"url"`
	Tree      []wireGitTreeEntry `json:"tree"`
	Truncated bool               `json:"truncated"`
}

type wireGitPerson struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"`
}

type wireGitRef struct {
	SHA     string `json:"sha"`
	URL     string `json:"url"`
	HTMLURL string `json:"html_url,omitempty"`
}

// Verification is a commit's signature verification as GitHub sends it:
// verified, and the reason ("valid", "unsigned", "unknown_key", ...).
type Verification struct {
	Verified   bool    `json:"verified"`
	Reason     string  `json:"reason"`
	Signature  *string `json:"signature"`
	Payload    *string `json:"payload"`
	VerifiedAt *string `json:"verified_at"`
}

type wireGitCommit struct {
	SHA          string        `json:"sha"`
	NodeID       string        `json:"node_id"`
	URL          string        `json:"url"`
	HTMLURL      string        `json:"html_url"`
	Author       wireGitPerson `json:"author"`
	Committer    wireGitPerson `json:"committer"`
	Message      string        `json:"message"`
	Tree         wireGitRef    `json:"tree"`
	Parents      []wireGitRef  `json:"parents"`
	Verification Verification  `json:"verification"`
}

// wireRepoCommit is GET /repos/{owner}/{repo}/commits/{ref}'s answer.
type wireRepoCommit struct {
	SHA         string        `json:"sha"`
	NodeID      string        `json:"node_id"`
	URL         string        `json:"url"`
	HTMLURL     string        `json:"html_url"`
	CommentsURL string        `json:"comments_url"`
	Commit      wireGitCommit `json:"commit"`
	Author      *struct{}     `json:"author"`
	Committer   *struct{}     `json:"committer"`
	Parents     []wireGitRef  `json:"parents"`
	Files       []any         `json:"files"`
}

type wireGitObject struct {
	Type string `json:"type"`
	SHA  string `json:"sha"`
	URL  string `json:"url"`
}

type wireGitReference struct {
	Ref    string        `json:"ref"`
	NodeID string        `json:"node_id"`
	URL    string        `json:"url"`
	Object wireGitObject `json:"object"`
}

// gitCommit is a commit object as git stores it.
type gitCommit struct {
	tree              string
	parents           []string
	author, committer string // "Name <email> unix tz"
	signed            bool   // carries a gpgsig header
	message           string
}

// readCommit reads commit sha of the bare repository dir.
func (s *Server) readCommit(ctx context.Context, dir, sha string) (gitCommit, error) {
	raw, err := s.run(ctx, dir, nil, nil, "cat-file", "commit", sha)
	if err != nil {
		return gitCommit{}, err
	}
	head, msg, _ := strings.Cut(raw, "\n\n")
	c := gitCommit{message: msg}
	for _, line := range strings.Split(head, "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "tree":
			c.tree = v
		case "parent":
			c.parents = append(c.parents, v)
		case "author":
			c.author = v
		case "committer":
			c.committer = v
		case "gpgsig", "gpgsig-sha256":
			c.signed = true
		}
	}
	return c, nil
}

// wirePerson turns git's "Name <email> unix tz" into the API's person.
func wirePerson(ident string) wireGitPerson {
	name, rest, _ := strings.Cut(ident, " <")
	email, when, _ := strings.Cut(rest, "> ")
	unix, tz, _ := strings.Cut(when, " ")
	sec, _ := strconv.ParseInt(unix, 10, 64)
	t := time.Unix(sec, 0).UTC()
	if off, err := time.Parse("-0700", tz); err == nil {
		_, o := off.Zone()
		t = t.In(time.FixedZone(tz, o))
	}
	return wireGitPerson{Name: name, Email: email, Date: t.Format(time.RFC3339)}
}

// gitIdent is git's "Name <email> unix tz" of an API person.
func gitIdent(p wireGitPerson, fallback string, now time.Time) (string, error) {
	if p.Name == "" {
		p.Name = fallback
	}
	if p.Email == "" {
		p.Email = fallback + "@users.noreply.github.com"
	}
	if strings.ContainsAny(p.Name+p.Email, "<>\n\x00") {
		return "", fmt.Errorf("invalid name or email %q <%s>", p.Name, p.Email)
	}
	when := now
	if p.Date != "" {
		t, err := time.Parse(time.RFC3339, p.Date)
		if err != nil {
			return "", fmt.Errorf("invalid date %q", p.Date)
		}
		when = t
	}
	return fmt.Sprintf("%s <%s> %d %s", p.Name, p.Email, when.Unix(), when.Format("-0700")), nil
}

// nodeID makes a node id for an object known by a name or a hash.
func nodeID(kind, name string) string {
	return kind + "_" + base64.RawURLEncoding.EncodeToString([]byte(name))
}

func (r Repo) wireCommit(sha string, c gitCommit, v Verification) wireGitCommit {
	api := r.APIURL
	parents := make([]wireGitRef, 0, len(c.parents))
	for _, p := range c.parents {
		parents = append(parents, wireGitRef{SHA: p, URL: api + "/git/commits/" + p, HTMLURL: r.HTMLURL + "/commit/" + p})
	}
	return wireGitCommit{
		SHA: sha, NodeID: nodeID("C", sha), URL: api + "/git/commits/" + sha, HTMLURL: r.HTMLURL + "/commit/" + sha,
		Author: wirePerson(c.author), Committer: wirePerson(c.committer), Message: c.message,
		Tree:    wireGitRef{SHA: c.tree, URL: api + "/git/trees/" + c.tree},
		Parents: parents, Verification: v,
	}
}

func (r Repo) wireRef(ref, sha string) wireGitReference {
	api := r.APIURL
	return wireGitReference{
		Ref: ref, NodeID: nodeID("REF", ref), URL: api + "/git/" + ref,
		Object: wireGitObject{Type: "commit", SHA: sha, URL: api + "/git/commits/" + sha},
	}
}
