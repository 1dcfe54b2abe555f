package doclint

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// heading is one section of a page: its level (2 for ##), its title and
// the anchor GitHub gives it.
type heading struct {
	level  int
	title  string
	anchor string
}

// page is one Markdown file of the manual: its path from the repository's
// root, its lines outside code fences, its code blocks and its headings.
type page struct {
	path     string
	prose    []string
	code     [][]string
	headings []heading
}

// anchors is the set of the page's section anchors.
func (p page) anchors() map[string]bool {
	a := map[string]bool{}
	for _, h := range p.headings {
		a[h.anchor] = true
	}
	return a
}

// anchorOf is GitHub's anchor for a heading: lower case, inline code marks
// and punctuation dropped (letters, digits, '-', '_' and spaces kept),
// spaces as hyphens; a repeated anchor gets -1, -2, ….
func anchorOf(title string, seen map[string]int) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	a := b.String()
	n := seen[a]
	seen[a]++
	if n > 0 {
		a = fmt.Sprintf("%s-%d", a, n)
	}
	return a
}

// fence is a code fence's opening run: "```" or "~~~", three or more, up to
// three spaces in; ok is false for any other line.
var fence = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})(.*)$")

// prose is the text of md outside its code fences, line by line.
func prose(md string) []string {
	lines, _ := split(md)
	return lines
}

// split parts md into its prose, line by line, and its code blocks, each
// the lines between its fences. A fence closes only with a run of its own
// character at least as long and nothing after it, so a ````markdown block
// may hold ``` blocks (as CommonMark reads it); an unclosed fence runs to
// the end.
func split(md string) (text []string, code [][]string) {
	open := ""
	var block []string
	for _, line := range strings.Split(md, "\n") {
		m := fence.FindStringSubmatch(line)
		switch {
		case open == "" && m != nil:
			open, block = m[1], []string{}
		case open == "":
			text = append(text, line)
		case m != nil && m[1][0] == open[0] && len(m[1]) >= len(open) && strings.TrimSpace(m[2]) == "":
			open = ""
			code = append(code, block)
		default:
			block = append(block, line)
		}
	}
	if open != "" {
		code = append(code, block)
	}
	return text, code
}

// headings are the ATX headings (# to ######) of the lines, with their anchors.
func headings(lines []string) []heading {
	seen := map[string]int{}
	var hs []heading
	for _, line := range lines {
		level := len(line) - len(strings.TrimLeft(line, "#"))
		if level < 1 || level > 6 || !strings.HasPrefix(line[level:], " ") {
			continue
		}
		title := strings.TrimSpace(line[level:])
		hs = append(hs, heading{level: level, title: title, anchor: anchorOf(title, seen)})
	}
	return hs
}

// parse reads the page at rel (slash-separated, from root).
func parse(root, rel string) (page, error) {
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return page{}, fmt.Errorf("read %s: %w", rel, err)
	}
	lines, code := split(string(b))
	return page{path: rel, prose: lines, code: code, headings: headings(lines)}, nil
}

// manual is the README and every page under docs/, in that order, by
// their paths from root.
func manual(root string) ([]string, error) {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	paths := []string{"README.md"}
	for _, d := range docs {
		paths = append(paths, "docs/"+filepath.Base(d))
	}
	return paths, nil
}

// inlineLink is a Markdown inline link's target: [text](target).
var inlineLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// brokenLinks reads the pages (paths from root) and says, one line each,
// every link of theirs that leads nowhere: a relative link to a file that
// does not exist, or to an anchor its page (the same one for #anchor)
// does not have. Links to other sites are not followed.
func brokenLinks(root string, paths []string) ([]string, error) {
	pages := map[string]page{}
	for _, rel := range paths {
		p, err := parse(root, rel)
		if err != nil {
			return nil, err
		}
		pages[rel] = p
	}
	var bad []string
	for _, rel := range paths {
		for _, line := range pages[rel].prose {
			for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
				if why := leadsNowhere(root, rel, m[1], pages); why != "" {
					bad = append(bad, fmt.Sprintf("%s: a link to %s leads nowhere (%s): %q", rel, m[1], why, strings.TrimSpace(line)))
				}
			}
		}
	}
	return bad, nil
}

// leadsNowhere says why target, linked from the page from, leads nowhere,
// or "" when it leads somewhere (or elsewhere than this repository).
func leadsNowhere(root, from, target string, pages map[string]page) string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	file, anchor, _ := strings.Cut(target, "#")
	dest := from
	if file != "" {
		dest = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(from), file)))
		if dest == ".." || strings.HasPrefix(dest, "../") || filepath.IsAbs(file) {
			return "outside the repository"
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(dest))); err != nil {
			return "no such file"
		}
	}
	if anchor == "" {
		return ""
	}
	p, ok := pages[dest]
	if !ok {
		if !strings.HasSuffix(dest, ".md") {
			return "an anchor in a file that is not a page"
		}
		var err error
		if p, err = parse(root, dest); err != nil {
			return err.Error()
		}
	}
	if !p.anchors()[anchor] {
		return "no section #" + anchor + " in " + dest
	}
	return ""
}
