package review

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"strings"

	"github.com/coreagent/core/internal/clip"
)

// Bounds on what one finding quotes: the head's excerpt and the
// reproduction file.
const (
	maxExcerpt = 4000
	maxFile    = 12000
)

// Key names the finding across runs: the first 12 hex digits of the
// SHA-256 of its file and claim. Its line comment carries it
// (status.FindingMarker), so a re-run finds the comment again.
func (f Finding) Key() string {
	sum := sha256.Sum256([]byte(f.File + "\x00" + f.Claim))
	return hex.EncodeToString(sum[:])[:12]
}

// where is the finding's place as people write it: file:line, or file.
func (f Finding) where() string {
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return f.File
}

// evidence is what a confirmed finding shows, in the body and in its line
// comment: the claim, the command the harness ran, the head's exit and
// output, the base's result, and, when withFile, the reproduction as a
// suggested test.
func evidence(f Finding, withFile bool) string {
	var b strings.Builder
	b.WriteString(text(f.Claim) + "\n\n")
	rp := f.Reproduction
	if rp == nil || rp.Head == nil {
		return b.String()
	}
	fmt.Fprintf(&b, "The harness ran %s on the head: it %s.\n\n", codeSpan(commandLine(rp.Command)), headWords(rp.Head))
	if ex := strings.TrimRight(rp.Head.Excerpt, "\n"); ex != "" {
		b.WriteString(fenced("text", clipBytes(ex, maxExcerpt)) + "\n")
	}
	fmt.Fprintf(&b, "On the base it %s.\n", baseWords(rp.Base))
	if withFile && rp.Path != "" {
		fmt.Fprintf(&b, "\nThe reproduction, as a suggested test (%s):\n\n%s", codeSpan(rp.Path), fenced(langOf(rp.Path), clipBytes(rp.Content, maxFile)))
	}
	return b.String()
}

// headWords says how the reproduction ended on the head.
func headWords(r *Ran) string {
	switch {
	case r.Error != "":
		return "could not run (" + text(clip.Line(r.Error, 200)) + ")"
	case r.TimedOut:
		return "timed out"
	}
	return fmt.Sprintf("exited %d", r.Exit)
}

// baseWords says how the reproduction ended on the base, in a few words.
func baseWords(r *Ran) string {
	switch {
	case r == nil:
		return "did not run"
	case r.Error != "":
		return "could not run (" + text(clip.Line(r.Error, 200)) + ")"
	case r.TimedOut:
		return "timed out"
	case r.Passed:
		return fmt.Sprintf("passed (exit %d)", r.Exit)
	}
	return fmt.Sprintf("failed too (exit %d)", r.Exit)
}

// commandLine is argv as a shell would take it: words with spaces or
// quotes are single-quoted.
func commandLine(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?;&|<>()#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		words[i] = a
	}
	return strings.Join(words, " ")
}

// codeSpan puts s, on one line, in a code span whose backticks outnumber
// any run of them in s.
func codeSpan(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	tick := strings.Repeat("`", clip.Backticks(s)+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return tick + s + tick
}

// fenced is s in a fenced code block of lang, its fence longer than any
// run of backticks in s, so nothing in s can close it.
func fenced(lang, s string) string {
	fence := clip.Fence(s)
	return fence + lang + "\n" + strings.TrimRight(s, "\n") + "\n" + fence + "\n"
}

// text is the model's words made safe to put in Markdown outside a code
// block: no HTML (a comment that would pass for a marker, a </details>
// that would end a fold), no fence that would swallow what follows, and
// on GitHub no mention pings anyone.
func text(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "<", "&lt;")
	s = unfence.Replace(s)
	return strings.ReplaceAll(s, "@", "@\u200b")
}

// unfence escapes the runs of three backticks or tildes that open a
// fenced code block.
var unfence = strings.NewReplacer("```", "\\`\\`\\`", "~~~", "\\~\\~\\~")

// langs maps a file's extension to the language a fence names.
var langs = map[string]string{
	".go": "go", ".py": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
	".ts": "typescript", ".tsx": "tsx", ".jsx": "jsx", ".rs": "rust", ".rb": "ruby", ".java": "java",
	".kt": "kotlin", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".cs": "csharp",
	".sh": "sh", ".bash": "bash", ".php": "php", ".swift": "swift", ".scala": "scala",
	".json": "json", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".sql": "sql",
}

// langOf guesses the language of the file at p from its extension.
func langOf(p string) string { return langs[strings.ToLower(path.Ext(p))] }

// clipBytes keeps at most n bytes of s, never splitting a character, and
// says when it cut.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return cut(s, n) + "\n… (cut)"
}

// closeFences is Markdown s with a fence it leaves open closed at its end,
// so the model's summary cannot turn what follows it into code.
func closeFences(s string) string {
	open := ""
	for line := range strings.SplitSeq(s, "\n") {
		t := strings.TrimLeft(line, " ")
		if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
			continue
		}
		run := len(t) - len(strings.TrimLeft(t, t[:1]))
		switch {
		case run < 3:
		case open == "":
			open = t[:run]
		case t[0] == open[0] && run >= len(open) && strings.TrimSpace(t[run:]) == "":
			open = ""
		}
	}
	if open == "" {
		return s
	}
	return strings.TrimRight(s, "\n") + "\n" + open
}
