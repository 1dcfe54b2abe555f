package gitdata

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// POST /repos/{owner}/{repo}/git/blobs stores content (encoding utf-8 or
// base64) and answers its SHA.
func (s *Server) createBlob(c Call, r Repo) {
	var in struct {
		Content  *string `json:"content"`
		Encoding string  `json:"encoding"`
	}
	if !mayWrite(c, r) || !c.Decode(&in) {
		return
	}
	if in.Content == nil {
		c.Invalid("Blob", "content", "missing_field", "")
		return
	}
	data := []byte(*in.Content)
	switch in.Encoding {
	case "", "utf-8":
	case "base64":
		raw, err := base64.StdEncoding.DecodeString(*in.Content)
		if err != nil {
			c.Invalid("Blob", "content", "invalid", "content is not valid Base64")
			return
		}
		data = raw
	default:
		c.Invalid("Blob", "encoding", "invalid", "")
		return
	}
	sha, err := s.run(c.Request().Context(), r.Dir, nil, bytes.NewReader(data), "hash-object", "-w", "--stdin")
	if err != nil {
		c.Fail(http.StatusInternalServerError, err.Error())
		return
	}
	sha = strings.TrimSpace(sha)
	c.JSON(http.StatusCreated, map[string]string{"sha": sha, "url": r.APIURL + "/git/blobs/" + sha})
}

// GET /repos/{owner}/{repo}/git/blobs/{sha} answers the blob, base64.
func (s *Server) getBlob(c Call, r Repo) {
	sha := c.Param("sha")
	if !s.objectIs(c.Request().Context(), r.Dir, sha, "blob") {
		c.Fail(http.StatusNotFound, "Not Found")
		return
	}
	raw, err := s.run(c.Request().Context(), r.Dir, nil, nil, "cat-file", "blob", sha)
	if err != nil {
		c.Fail(http.StatusInternalServerError, err.Error())
		return
	}
	c.JSON(http.StatusOK, wireGitBlob{
		SHA: sha, NodeID: nodeID("B", sha), URL: r.APIURL + "/git/blobs/" + sha,
		Size: len(raw), Content: base64.StdEncoding.EncodeToString([]byte(raw)), Encoding: "base64",
	})
}

// treeInput is one entry of POST git/trees: SHA is absent, null (delete
// the path) or a SHA; Content makes a blob.
type treeInput struct {
	Path    string          `json:"path"`
	Mode    string          `json:"mode"`
	Type    string          `json:"type"`
	SHA     json.RawMessage `json:"sha"`
	Content *string         `json:"content"`
}

// POST /repos/{owner}/{repo}/git/trees makes a tree: base_tree's entries
// (none without it) with those given changed, added or (sha null)
// deleted, through a temporary index.
func (s *Server) createTree(c Call, r Repo) {
	var in struct {
		BaseTree string      `json:"base_tree"`
		Tree     []treeInput `json:"tree"`
	}
	if !mayWrite(c, r) || !c.Decode(&in) {
		return
	}
	ctx, dir := c.Request().Context(), r.Dir
	if in.BaseTree != "" && !s.objectIs(ctx, dir, in.BaseTree, "tree") {
		c.Invalid("Tree", "base_tree", "invalid", "base_tree "+in.BaseTree+" is not a tree")
		return
	}
	tmp, err := os.MkdirTemp(s.tmp, "index-")
	if err != nil {
		c.Fail(http.StatusInternalServerError, err.Error())
		return
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}
	if in.BaseTree != "" {
		if _, err := s.run(ctx, dir, env, nil, "read-tree", in.BaseTree); err != nil {
			c.Fail(http.StatusInternalServerError, err.Error())
			return
		}
	}
	for _, e := range in.Tree {
		if msg := s.applyTreeEntry(ctx, dir, env, e); msg != "" {
			c.Invalid("Tree", "tree", "invalid", msg)
			return
		}
	}
	sha, err := s.run(ctx, dir, env, nil, "write-tree")
	if err != nil {
		c.Invalid("Tree", "tree", "invalid", err.Error())
		return
	}
	s.answerTree(c, r, http.StatusCreated, strings.TrimSpace(sha), false)
}

// applyTreeEntry puts e into the index env names, or says what is wrong.
func (s *Server) applyTreeEntry(ctx context.Context, dir string, env []string, e treeInput) string {
	if e.Path == "" || strings.HasPrefix(e.Path, "/") || strings.HasSuffix(e.Path, "/") {
		return fmt.Sprintf("tree.path %q is not a valid path", e.Path)
	}
	switch e.Mode {
	case "100644", "100755", "120000", "160000", "040000":
	default:
		return fmt.Sprintf("tree.mode %q is not one of 100644, 100755, 040000, 160000, 120000", e.Mode)
	}
	var sha *string
	if len(e.SHA) > 0 {
		if err := json.Unmarshal(e.SHA, &sha); err != nil {
			return "tree.sha must be a string or null"
		}
	}
	switch {
	case e.Content != nil && sha != nil:
		return "tree.sha and tree.content cannot both be set"
	case e.Content != nil:
		out, err := s.run(ctx, dir, nil, strings.NewReader(*e.Content), "hash-object", "-w", "--stdin")
		if err != nil {
			return err.Error()
		}
		blob := strings.TrimSpace(out)
		sha = &blob
	case sha == nil && len(e.SHA) > 0: // null: delete the path
		if _, err := s.run(ctx, dir, env, nil, "rm", "--cached", "-r", "--quiet", "--ignore-unmatch", "--", e.Path); err != nil {
			return err.Error()
		}
		return ""
	case sha == nil:
		return "tree.sha or tree.content is required"
	}
	want := "blob"
	switch e.Mode {
	case "160000":
		want = "" // a submodule's commit lives in another repository
	case "040000":
		return "tree entries of mode 040000 are not supported by the double"
	}
	if want != "" && !s.objectIs(ctx, dir, *sha, want) {
		return fmt.Sprintf("tree.sha %s is not a valid %s", *sha, want)
	}
	if _, err := s.run(ctx, dir, env, nil, "update-index", "--add", "--cacheinfo", e.Mode+","+*sha+","+e.Path); err != nil {
		return err.Error()
	}
	return ""
}

// GET /repos/{owner}/{repo}/git/trees/{sha} answers a tree's entries
// (recursive=1: every blob and submodule below it).
func (s *Server) getTree(c Call, r Repo) {
	sha := c.Param("sha")
	if !s.objectIs(c.Request().Context(), r.Dir, sha, "tree") {
		c.Fail(http.StatusNotFound, "Not Found")
		return
	}
	s.answerTree(c, r, http.StatusOK, sha, c.Request().URL.Query().Get("recursive") != "")
}

func (s *Server) answerTree(c Call, r Repo, status int, sha string, recursive bool) {
	args := []string{"ls-tree", "-l", "-z"}
	if recursive {
		args = append(args, "-r")
	}
	out, err := s.run(c.Request().Context(), r.Dir, nil, nil, append(args, sha)...)
	if err != nil {
		c.Fail(http.StatusInternalServerError, err.Error())
		return
	}
	tree := wireGitTree{SHA: sha, URL: r.APIURL + "/git/trees/" + sha, Tree: []wireGitTreeEntry{}}
	for _, rec := range strings.Split(strings.TrimSuffix(out, "\x00"), "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			continue
		}
		e := wireGitTreeEntry{Path: path, Mode: f[0], Type: f[1], SHA: f[2], URL: r.APIURL + "/git/" + f[1] + "s/" + f[2]}
		var size int
		if _, err := fmt.Sscan(f[3], &size); err == nil {
			e.Size = &size
		}
		tree.Tree = append(tree.Tree, e)
	}
	c.JSON(status, tree)
}
