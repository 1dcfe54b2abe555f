// Package doclint (tests only) holds the README to its own map: its
// contents list names every section in order, and every link to a section
// of the page leads to one.
package doclint

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// heading is one section of the page: its level (2 for ##), its title and
// the anchor GitHub gives it.
type heading struct {
	level  int
	title  string
	anchor string
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

// readme reads the repository's README: its lines outside code fences.
func readme(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatalf("open the README: %v", err)
	}
	defer f.Close()
	var lines []string
	fenced := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			lines = append(lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read the README: %v", err)
	}
	return lines
}

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

var sectionLink = regexp.MustCompile(`\]\(#([^)\s]+)\)`)

// TestSectionLinksLead: every [text](#anchor) in the README names a section
// it has.
func TestSectionLinksLead(t *testing.T) {
	lines := readme(t)
	anchors := map[string]bool{}
	for _, h := range headings(lines) {
		anchors[h.anchor] = true
	}
	for _, line := range lines {
		for _, m := range sectionLink.FindAllStringSubmatch(line, -1) {
			if !anchors[m[1]] {
				t.Errorf("README: a link to #%s leads nowhere: %q", m[1], strings.TrimSpace(line))
			}
		}
	}
}

// TestContentsListEverySection: the README's Contents lists its ## and ###
// sections, in order, each linked to its anchor.
func TestContentsListEverySection(t *testing.T) {
	lines := readme(t)
	var want []string
	for _, h := range headings(lines) {
		if h.level < 2 || h.level > 3 || h.title == "Contents" {
			continue
		}
		want = append(want, fmt.Sprintf("%s- [%s](#%s)", strings.Repeat("  ", h.level-2), h.title, h.anchor))
	}
	var got []string
	in := false
	for _, line := range lines {
		switch {
		case line == "## Contents":
			in = true
		case in && strings.HasPrefix(line, "## "):
			in = false
		case in && strings.TrimSpace(line) != "":
			got = append(got, line)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("README's ## Contents is not the page's sections; it should read:\n\n## Contents\n\n%s\n", strings.Join(want, "\n"))
	}
}
