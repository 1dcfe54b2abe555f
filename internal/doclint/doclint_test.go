// Package doclint (tests only) holds the manual, the README and its pages
// under docs/, to itself: the README's Reference lists every page and
// every section of each, in order, every link in any of them leads to a
// file that exists and to a section its page has, the sessions page
// documents every flag the settings give the CLI, and the commands of their
// code blocks use only flags core has.
package doclint

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// root is the repository's root, from this package's directory.
var root = filepath.Join("..", "..")

// TestLinksLead: every relative link in the README and in docs/*.md names a
// file there is and, with #anchor, a section of that page.
func TestLinksLead(t *testing.T) {
	paths, err := manual(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 2 {
		t.Fatalf("the manual is %v: docs/ has no page", paths)
	}
	bad, err := brokenLinks(root, paths)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Error(b)
	}
}

// referenceEntry is a page's line in the README's Reference.
var referenceEntry = regexp.MustCompile(`^- \[[^\]]*\]\(docs/([^)#]+\.md)\)$`)

// TestReferenceListsEveryPage: the README's ## Reference lists each page of
// docs/ but the architecture (the code's map, linked from the text), with
// its title, then its ## sections in order, each linked to its anchor.
func TestReferenceListsEveryPage(t *testing.T) {
	readme, err := parse(root, "README.md")
	if err != nil {
		t.Fatal(err)
	}
	var got, order []string
	in := false
	for _, line := range readme.prose {
		switch {
		case line == "## Reference":
			in = true
		case in && strings.HasPrefix(line, "#"):
			in = false
		case in && (strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "  - ")):
			got = append(got, line)
			if m := referenceEntry.FindStringSubmatch(line); m != nil {
				order = append(order, m[1])
			}
		}
	}
	paths, err := manual(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths[1:] {
		if name := strings.TrimPrefix(p, "docs/"); name != "architecture.md" && !slices.Contains(order, name) {
			order = append(order, name)
		}
	}
	var want []string
	for _, name := range order {
		p, err := parse(root, "docs/"+name)
		if err != nil {
			t.Fatalf("the Reference lists docs/%s: %v", name, err)
		}
		want = append(want, reference(p)...)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("README's ## Reference is not the pages' sections; its list should read:\n\n%s\n", strings.Join(want, "\n"))
	}
}

// reference is a page's entry in the README's Reference: its title, then
// its ## sections.
func reference(p page) []string {
	title := strings.TrimSuffix(filepath.Base(p.path), ".md")
	for _, h := range p.headings {
		if h.level == 1 {
			title = h.title
			break
		}
	}
	lines := []string{fmt.Sprintf("- [%s](%s)", title, p.path)}
	for _, h := range p.headings {
		if h.level == 2 {
			lines = append(lines, fmt.Sprintf("  - [%s](%s#%s)", h.title, p.path, h.anchor))
		}
	}
	return lines
}

// TestBrokenLinksFound holds the link check itself to a small manual with
// each kind of link, good and bad.
func TestBrokenLinksFound(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"README.md": "# core\n\n## Set-up\n\n[a page](docs/a.md), [its section](docs/a.md#the-box), " +
			"[set-up](#set-up), [the script](bench/x.sh), [elsewhere](https://example.com/#nowhere)\n\n" +
			"[gone](docs/gone.md) and [no section](docs/a.md#the-boxes)\n",
		"bench/x.sh": "true\n",
		"docs/a.md": "# A\n\n## The box\n\n```\n## Fenced\n```\n\n[back](../README.md#set-up), [b's](b.md#limits), " +
			"[fenced](#fenced), [here](#the-box), [out](../../x.md), [script's](../bench/x.sh#top)\n",
		"docs/b.md": "# B\n\n## Limits\n\n[a's box](a.md#the-box) and [a's lid](a.md#the-lid)\n",
	}
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	paths, err := manual(dir)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := brokenLinks(dir, paths)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range bad {
		got = append(got, b[:strings.Index(b, ")")+1])
	}
	want := []string{
		"README.md: a link to docs/gone.md leads nowhere (no such file)",
		"README.md: a link to docs/a.md#the-boxes leads nowhere (no section #the-boxes in docs/a.md)",
		"docs/a.md: a link to #fenced leads nowhere (no section #fenced in docs/a.md)",
		"docs/a.md: a link to ../../x.md leads nowhere (outside the repository)",
		"docs/a.md: a link to ../bench/x.sh#top leads nowhere (an anchor in a file that is not a page)",
		"docs/b.md: a link to a.md#the-lid leads nowhere (no section #the-lid in docs/a.md)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the broken links found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestProse: what is inside a code fence is not prose, however the fences
// nest.
func TestProse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		md   string
		want []string
	}{
		{name: "a plain fence", md: "a\n```sh\n# comment\n```\nb", want: []string{"a", "b"}},
		{name: "a longer fence holds a shorter one", md: "a\n````markdown\n### x\n```go\ncode\n```\n### y\n````\nb", want: []string{"a", "b"}},
		{name: "tildes are closed by tildes", md: "~~~\n```\n## x\n~~~\nb", want: []string{"b"}},
		{name: "a closing run with words after it does not close", md: "```\n```go\n## x\n```\nb", want: []string{"b"}},
		{name: "indented four spaces is no fence", md: "    ```\n## x", want: []string{"    ```", "## x"}},
		{name: "an unclosed fence runs to the end", md: "a\n```\n## x", want: []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := prose(tt.md); !slices.Equal(got, tt.want) {
				t.Errorf("prose(%q) = %q, want %q", tt.md, got, tt.want)
			}
		})
	}
}

// FuzzProse: prose and headings never panic, and prose keeps only lines
// of the page, in order.
func FuzzProse(f *testing.F) {
	f.Add("# a\n## a\n```\n## b\n```\n## a")
	f.Add("````md\n```\n```\n````\n~~~\n")
	f.Fuzz(func(t *testing.T, md string) {
		lines := prose(md)
		all := strings.Split(md, "\n")
		i := 0
		for _, l := range lines {
			for i < len(all) && all[i] != l {
				i++
			}
			if i == len(all) {
				t.Fatalf("prose(%q) = %q: %q is not a line of the page, in order", md, lines, l)
			}
			i++
		}
		for _, h := range headings(lines) {
			if h.level < 1 || h.level > 6 || strings.ContainsAny(h.anchor, " #") {
				t.Fatalf("heading %+v of %q", h, md)
			}
		}
	})
}
