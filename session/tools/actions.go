package tools

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// ActionsDir is where a repository keeps the actions its workflows use.
// An action runs with the workflow's token like the workflow itself, so
// the tools refuse to write here, and landing refuses work that changes
// anything here, unless the user allowed workflow changes.
const ActionsDir = ".github/actions"

// MaxWorkflowSize caps what core reads of a workflow or an action file
// (GitHub's own limit on a workflow is far below it).
const MaxWorkflowSize = 1 << 20

// maxActionFiles bounds how many action files one Guard follows.
const maxActionFiles = 256

// ErrTooLarge is a Tree's answer for a file larger than MaxWorkflowSize.
var ErrTooLarge = errors.New("larger than the workflow size cap")

// Tree is a repository's files as one version holds them: the commit a
// session started from, the tree it would land, or the workspace now.
type Tree interface {
	// Workflows lists the files directly under .github/workflows
	// (slash-separated, relative to the root).
	Workflows(ctx context.Context) ([]string, error)
	// Read returns the regular file at rel; an error wrapping
	// fs.ErrNotExist when there is none (or it is not a regular file),
	// ErrTooLarge when it is larger than MaxWorkflowSize.
	Read(ctx context.Context, rel string) ([]byte, error)
}

// Guard is what runs with the workflow token: the workflows, everything
// under .github/actions, and the action files (action.yml, action.yaml)
// that a workflow uses locally (`uses: ./path`), directly or through
// another local action. The zero Guard guards the two directories only.
type Guard struct {
	files map[string]bool // lower-cased, cleaned slash paths
	// every is set when a workflow or an action could not be read whole:
	// then every action.yml and action.yaml is guarded.
	every bool
}

// ReadGuard finds what t's workflows use locally. A file t cannot read
// (too large, unreadable) guards every action file rather than none.
func ReadGuard(ctx context.Context, t Tree) (*Guard, error) {
	g := &Guard{files: make(map[string]bool)}
	workflows, err := t.Workflows(ctx)
	if err != nil {
		return nil, err
	}
	queue := workflows
	seen := make(map[string]bool)
	for len(queue) > 0 {
		rel := queue[0]
		queue = queue[1:]
		if seen[rel] {
			continue
		}
		seen[rel] = true
		if len(seen) > maxActionFiles {
			g.every = true
			break
		}
		data, err := t.Read(ctx, rel)
		switch {
		case errors.Is(err, ErrTooLarge):
			g.every = true
			continue
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			g.every = true
			continue
		}
		for _, dir := range localUses(data) {
			for _, f := range actionFiles(dir) {
				g.files[strings.ToLower(f)] = true
				queue = append(queue, f)
			}
		}
	}
	return g, nil
}

// Merge adds what o guards to g.
func (g *Guard) Merge(o *Guard) {
	if o == nil {
		return
	}
	if g.files == nil {
		g.files = make(map[string]bool)
	}
	for f := range o.files {
		g.files[f] = true
	}
	g.every = g.every || o.every
}

// Guards reports whether rel (relative to the root, slash- or
// system-separated) runs with the workflow token: a workflow, a file under
// .github/actions, a local action file a workflow uses, or a directory
// holding one (replacing it with a file or a link changes the action).
// Case is ignored, as on a case-insensitive file system.
func (g *Guard) Guards(rel string) bool {
	rel = cleanRel(rel)
	if InWorkflows(rel) || InActions(rel) || strings.EqualFold(rel, ".github") {
		return true
	}
	if g == nil {
		return false
	}
	low := strings.ToLower(rel)
	if g.files[low] || g.every && isActionFile(low) {
		return true
	}
	for f := range g.files {
		if strings.HasPrefix(f, low+"/") {
			return true
		}
	}
	return false
}

// Files lists the local action files g guards, for messages.
func (g *Guard) Files() []string {
	var out []string
	for f := range g.files {
		out = append(out, f)
	}
	return out
}

// InActions reports whether rel is .github/actions or lies under it (case
// ignored).
func InActions(rel string) bool {
	parts := strings.Split(cleanRel(rel), "/")
	return len(parts) >= 2 && strings.EqualFold(parts[0], ".github") && strings.EqualFold(parts[1], "actions")
}

func cleanRel(rel string) string {
	return path.Clean(strings.ReplaceAll(rel, `\`, "/"))
}

func isActionFile(rel string) bool {
	base := strings.ToLower(path.Base(rel))
	return base == "action.yml" || base == "action.yaml"
}

// actionFiles are the files that define the local action at dir, as a
// `uses:` names it: the file itself when it names action.yml or
// action.yaml, else both names in the directory (a new action.yaml beside
// a missing action.yml would be the action too).
func actionFiles(dir string) []string {
	if isActionFile(dir) {
		return []string{dir}
	}
	if dir == "." {
		return []string{"action.yml", "action.yaml"}
	}
	return []string{dir + "/action.yml", dir + "/action.yaml"}
}

// usesLine finds `uses: ./…` however the YAML around it is written
// (block or flow, quoted or not), as a second reading for what the YAML
// parser rejects or reads differently from GitHub.
var usesLine = regexp.MustCompile(`uses["']?\s*:\s*["']?(\./[^\s"'#,\]}]*)`)

// localUses returns the local actions data (a workflow or an action file)
// uses, as cleaned paths relative to the repository root: every string
// value of a "uses" key, at any depth, that starts with "./", and every
// such value a line scan finds. Paths that leave the root are dropped
// (GitHub refuses them).
func localUses(data []byte) []string {
	var vals []string
	var doc any
	if err := yaml.Unmarshal(data, &doc); err == nil {
		walkUses(doc, &vals)
	}
	for _, m := range usesLine.FindAllSubmatch(data, -1) {
		vals = append(vals, string(m[1]))
	}
	var out []string
	seen := make(map[string]bool)
	for _, v := range vals {
		v = strings.TrimSpace(v)
		if !strings.HasPrefix(v, "./") {
			continue
		}
		p := path.Clean(v)
		if p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

func walkUses(v any, out *[]string) {
	switch n := v.(type) {
	case map[string]any:
		for k, c := range n {
			if s, ok := c.(string); ok && k == "uses" {
				*out = append(*out, s)
			}
			walkUses(c, out)
		}
	case map[any]any:
		for k, c := range n {
			if s, ok := c.(string); ok && k == "uses" {
				*out = append(*out, s)
			}
			walkUses(c, out)
		}
	case []any:
		for _, c := range n {
			walkUses(c, out)
		}
	}
}
