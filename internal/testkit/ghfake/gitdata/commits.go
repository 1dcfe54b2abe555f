package gitdata

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// zeroSHA is the old value git's update-ref takes for "must not exist".
const zeroSHA = "0000000000000000000000000000000000000000"

// signature is the signature the double puts on the nth commit it signs,
// as GitHub signs those made through the API with an App's token: each
// different, as GitHub's (they hold the time of signing), so a commit
// made again is another commit.
func signature(n int) string {
	body := base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "testkit signature %d", n))
	return "-----BEGIN PGP SIGNATURE-----\n\n" + body + "\n=core\n-----END PGP SIGNATURE-----"
}

// POST /repos/{owner}/{repo}/git/commits makes a commit object with the
// given tree, parents, author and committer (dates kept to the second,
// with their offsets). GitHub signs it for an App (signsFor): the double
// adds a gpgsig header and records the commit as verified ("valid");
// a user's is "unsigned".
func (s *Server) createCommit(c Call, r Repo) {
	var in struct {
		Message   *string        `json:"message"`
		Tree      string         `json:"tree"`
		Parents   []string       `json:"parents"`
		Author    *wireGitPerson `json:"author"`
		Committer *wireGitPerson `json:"committer"`
	}
	if !mayWrite(c, r) || !c.Decode(&in) {
		return
	}
	ctx, dir := c.Request().Context(), r.Dir
	switch {
	case in.Message == nil:
		c.Invalid("Commit", "message", "missing_field", "")
		return
	case !s.objectIs(ctx, dir, in.Tree, "tree"):
		c.Invalid("Commit", "tree", "invalid", "Tree SHA does not exist")
		return
	}
	var raw strings.Builder
	fmt.Fprintf(&raw, "tree %s\n", in.Tree)
	for _, p := range in.Parents {
		if !s.objectIs(ctx, dir, p, "commit") {
			c.Invalid("Commit", "parents", "invalid", "Parent SHA does not exist or is not a commit object")
			return
		}
		fmt.Fprintf(&raw, "parent %s\n", p)
	}
	now := time.Now().UTC().Truncate(time.Second)
	if in.Author == nil {
		in.Author = &wireGitPerson{}
	}
	if in.Committer == nil {
		in.Committer = in.Author
	}
	author, err := gitIdent(*in.Author, r.Login, now)
	if err == nil {
		var committer string
		committer, err = gitIdent(*in.Committer, r.Login, now)
		fmt.Fprintf(&raw, "author %s\ncommitter %s\n", author, committer)
	}
	if err != nil {
		c.Invalid("Commit", "author", "invalid", err.Error())
		return
	}
	v := Verification{Reason: "unsigned"}
	unsigned := raw.String() + "\n" + *in.Message
	if r.Signs {
		s.mu.Lock()
		s.signed++
		sig := signature(s.signed)
		s.mu.Unlock()
		fmt.Fprintf(&raw, "gpgsig %s\n", strings.ReplaceAll(sig, "\n", "\n "))
		at := wireTime(now)
		v = Verification{Verified: true, Reason: "valid", Signature: &sig, VerifiedAt: &at}
	}
	raw.WriteString("\n" + *in.Message)
	out, err := s.run(ctx, dir, nil, strings.NewReader(raw.String()), "hash-object", "-t", "commit", "-w", "--stdin")
	if err != nil {
		c.Invalid("Commit", "", "invalid", err.Error())
		return
	}
	sha := strings.TrimSpace(out)
	if v.Verified {
		v.Payload = &unsigned
	}
	s.mu.Lock()
	s.verifications[dir+"\x00"+sha] = v
	s.mu.Unlock()
	s.answerCommit(c, r, http.StatusCreated, sha, false)
}

// verification is what GitHub says of commit sha's signature: what the
// API recorded when it made it, else "unsigned", or "unknown_key" for a
// signature (pushed with git) the double cannot check.
func (s *Server) verification(dir, sha string, signed bool) Verification {
	s.mu.Lock()
	v, ok := s.verifications[dir+"\x00"+sha]
	s.mu.Unlock()
	switch {
	case ok:
		return v
	case signed:
		return Verification{Reason: "unknown_key"}
	}
	return Verification{Reason: "unsigned"}
}

// answerCommit answers commit sha as git/commits does, or, repo, as
// GET commits/{ref} does.
func (s *Server) answerCommit(c Call, r Repo, status int, sha string, repo bool) {
	gc, err := s.readCommit(c.Request().Context(), r.Dir, sha)
	if err != nil {
		c.Fail(http.StatusInternalServerError, err.Error())
		return
	}
	wc := r.wireCommit(sha, gc, s.verification(r.Dir, sha, gc.signed))
	if !repo {
		c.JSON(status, wc)
		return
	}
	c.JSON(status, wireRepoCommit{
		SHA: sha, NodeID: wc.NodeID, URL: r.APIURL + "/commits/" + sha, HTMLURL: wc.HTMLURL,
		CommentsURL: r.APIURL + "/commits/" + sha + "/comments", Commit: wc,
		Parents: wc.Parents, Files: []any{},
	})
}

// GET /repos/{owner}/{repo}/git/commits/{sha}.
func (s *Server) getGitCommit(c Call, r Repo) {
	sha := c.Param("sha")
	if !s.objectIs(c.Request().Context(), r.Dir, sha, "commit") {
		c.Fail(http.StatusNotFound, "Not Found")
		return
	}
	s.answerCommit(c, r, http.StatusOK, sha, false)
}

// GET /repos/{owner}/{repo}/commits/{ref} answers the commit a SHA or a
// branch names, with its verification; 422 for none, as GitHub does.
func (s *Server) getRepoCommit(c Call, r Repo) {
	ref := c.Param("ref")
	sha, err := s.trimmed(c.Request().Context(), r.Dir, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil || strings.HasPrefix(ref, "-") {
		c.Fail(http.StatusUnprocessableEntity, "No commit found for SHA: "+ref)
		return
	}
	s.answerCommit(c, r, http.StatusOK, sha, true)
}

// refSHA returns the commit ref (refs/...) points at; ok is false when
// there is no such ref.
func (s *Server) refSHA(ctx context.Context, dir, ref string) (string, bool) {
	if strings.Contains(ref, "..") || !strings.HasPrefix(ref, "refs/") {
		return "", false
	}
	sha, err := s.trimmed(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", ref)
	return sha, err == nil
}

// GET /repos/{owner}/{repo}/git/ref/{ref} ("heads/main") answers the ref.
func (s *Server) getRef(c Call, r Repo) {
	ref := "refs/" + c.Param("ref")
	sha, ok := s.refSHA(c.Request().Context(), r.Dir, ref)
	if !ok {
		c.Fail(http.StatusNotFound, "Not Found")
		return
	}
	c.JSON(http.StatusOK, r.wireRef(ref, sha))
}

// POST /repos/{owner}/{repo}/git/refs makes a ref (refs/heads/x) at sha.
func (s *Server) createRef(c Call, r Repo) {
	var in struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	}
	if !mayWrite(c, r) || !c.Decode(&in) {
		return
	}
	ctx := c.Request().Context()
	if strings.Count(in.Ref, "/") < 2 || !strings.HasPrefix(in.Ref, "refs/") {
		c.Fail(http.StatusUnprocessableEntity, "Reference name must start with 'refs/' and have at least two slashes.")
		return
	}
	if _, err := s.trimmed(ctx, r.Dir, "check-ref-format", in.Ref); err != nil {
		c.Fail(http.StatusUnprocessableEntity, "Reference name is not valid")
		return
	}
	if !s.objectIs(ctx, r.Dir, in.SHA, "commit") {
		c.Fail(http.StatusUnprocessableEntity, "Object does not exist")
		return
	}
	if _, err := s.trimmed(ctx, r.Dir, "update-ref", in.Ref, in.SHA, zeroSHA); err != nil {
		c.Fail(http.StatusUnprocessableEntity, "Reference already exists")
		return
	}
	c.JSON(http.StatusCreated, r.wireRef(in.Ref, in.SHA))
}

// PATCH /repos/{owner}/{repo}/git/refs/{ref} moves a ref to sha; without
// force only a fast-forward, else 422 "Update is not a fast forward". The
// old value goes to update-ref, so a push in between is refused too.
func (s *Server) updateRef(c Call, r Repo) {
	var in struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if !mayWrite(c, r) || !c.Decode(&in) {
		return
	}
	ctx, dir := c.Request().Context(), r.Dir
	ref := "refs/" + c.Param("ref")
	old, ok := s.refSHA(c.Request().Context(), r.Dir, ref)
	switch {
	case !ok:
		c.Fail(http.StatusUnprocessableEntity, "Reference does not exist")
		return
	case !s.objectIs(ctx, dir, in.SHA, "commit"):
		c.Fail(http.StatusUnprocessableEntity, "Object does not exist")
		return
	}
	if !in.Force {
		if _, err := s.trimmed(ctx, dir, "merge-base", "--is-ancestor", old, in.SHA); err != nil {
			c.Fail(http.StatusUnprocessableEntity, "Update is not a fast forward")
			return
		}
	}
	if _, err := s.trimmed(ctx, dir, "update-ref", ref, in.SHA, old); err != nil {
		c.Fail(http.StatusUnprocessableEntity, "Update is not a fast forward")
		return
	}
	c.JSON(http.StatusOK, r.wireRef(ref, in.SHA))
}
