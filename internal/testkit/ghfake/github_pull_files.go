package ghfake

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// pullRef is where GitHub keeps a pull request's head in the base
// repository, whichever repository the head lives in: a fork's commits can
// be fetched from the base by this ref.
func pullRef(number int) string { return "refs/pull/" + strconv.Itoa(number) + "/head" }

// syncPullRef points refs/pull/N/head of the base repository at the head
// commit, fetching it from the head repository (a fork) when it lives
// there.
func (g *GitHub) syncPullRef(ctx context.Context, base *Repo, number int, headDir, headSHA string) error {
	if headDir != base.dir {
		if _, err := g.runGit(ctx, base.dir, nil, "fetch", "--quiet", "--no-tags", "--", headDir, headSHA); err != nil {
			return err
		}
	}
	_, err := g.runGit(ctx, base.dir, nil, "update-ref", pullRef(number), headSHA)
	return err
}

// wirePullFile is an entry of GET /pulls/{number}/files, as go-github's
// CommitFile reads it.
type wirePullFile struct {
	SHA              string `json:"sha"`
	Filename         string `json:"filename"`
	Status           string `json:"status"`
	Additions        int    `json:"additions"`
	Deletions        int    `json:"deletions"`
	Changes          int    `json:"changes"`
	BlobURL          string `json:"blob_url"`
	RawURL           string `json:"raw_url"`
	ContentsURL      string `json:"contents_url"`
	Patch            string `json:"patch,omitempty"`
	PreviousFilename string `json:"previous_filename,omitempty"`
}

// pullFiles is the pull request's diff as GitHub computes it: from the
// merge base of the base branch and the head, per file, with each file's
// hunks (three lines of context) as its patch.
func (g *GitHub) pullFiles(ctx context.Context, r *Repo, is *issueState) ([]wirePullFile, error) {
	g.mu.Lock()
	number, base := is.Number, is.pull.base
	g.mu.Unlock()
	head := pullRef(number)
	mb, err := g.runGit(ctx, r.dir, nil, "merge-base", "refs/heads/"+base, head)
	if err != nil {
		return nil, err
	}
	stat, err := g.runGit(ctx, r.dir, nil, "diff", "--no-color", "--no-renames", "--numstat", mb, head)
	if err != nil {
		return nil, err
	}
	status, err := g.runGit(ctx, r.dir, nil, "diff", "--no-color", "--no-renames", "--name-status", mb, head)
	if err != nil {
		return nil, err
	}
	kinds := map[string]string{}
	for _, line := range strings.Split(status, "\n") {
		if k, path, ok := strings.Cut(line, "\t"); ok {
			kinds[path] = map[string]string{"A": "added", "D": "removed"}[k[:1]]
			if kinds[path] == "" {
				kinds[path] = "modified"
			}
		}
	}
	var out []wirePullFile
	for _, line := range strings.Split(stat, "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 {
			continue
		}
		add, _ := strconv.Atoi(f[0])
		del, _ := strconv.Atoi(f[1])
		path := f[2]
		patch, err := g.runGit(ctx, r.dir, nil, "diff", "--no-color", "--no-renames", mb, head, "--", path)
		if err != nil {
			return nil, err
		}
		// GitHub's patch starts at the first hunk: no diff header.
		if i := strings.Index(patch, "\n@@ "); i >= 0 {
			patch = patch[i+1:]
		} else {
			patch = "" // binary
		}
		sha, _ := g.runGit(ctx, r.dir, nil, "rev-parse", head+":"+path)
		out = append(out, wirePullFile{
			SHA: sha, Filename: path, Status: kinds[path], Additions: add, Deletions: del, Changes: add + del,
			BlobURL:     r.HTMLURL() + "/blob/" + sha + "/" + path,
			RawURL:      r.HTMLURL() + "/raw/" + sha + "/" + path,
			ContentsURL: r.apiURL() + "/contents/" + path,
			Patch:       patch,
		})
	}
	return out, nil
}

// GET /repos/{owner}/{repo}/pulls/{number}/files, paginated.
func (g *GitHub) listPullFiles(c *apiCall) {
	g.mu.Lock()
	is := c.pullLocked()
	g.mu.Unlock()
	if is == nil {
		return
	}
	c.g.refreshPulls(c.r.Context(), c.repo, []*issueState{is})
	files, err := g.pullFiles(c.r.Context(), c.repo, is)
	if err != nil {
		c.fail(http.StatusInternalServerError, err.Error())
		return
	}
	c.json(http.StatusOK, paginate(c, files))
}

var hunkHeader = regexp.MustCompile(`(?m)^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@`)

// rightLines are the lines of the head's version a patch shows (added and
// context lines): the only ones a review comment may be on, side RIGHT.
func rightLines(patch string) map[int]int {
	lines := map[int]int{} // line -> hunk index
	for i, m := range hunkHeader.FindAllStringSubmatch(patch, -1) {
		start, _ := strconv.Atoi(m[1])
		n := 1
		if m[2] != "" {
			n, _ = strconv.Atoi(m[2])
		}
		for l := start; l < start+n; l++ {
			lines[l] = i
		}
	}
	return lines
}
