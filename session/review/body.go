package review

import (
	"fmt"
	"slices"
	"strings"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/testclass"
	"github.com/coreagent/core/status"
)

// maxBody keeps a review's body under GitHub's 65,536 characters.
const maxBody = 60000

// Result is what a review run found: the model's summary, and the
// contract of the checks run on Base (the start commit) and on Head's
// tree.
type Result struct {
	SessionID  string
	Base, Head string // commits
	Summary    string
	Contract   *contract.Contract
	Turns      int
	Tokens     int
	// Findings are the model's findings as the harness judged them, in
	// the order the model reported them.
	Findings []Finding
	// Tests is the harness's classification of the pull request's own
	// tests; nil when it did not run.
	Tests *testclass.Classification
	// CostUSD is what the run spent (nil: no price known); Exhausted
	// says its budget ran out (the review then holds what was confirmed
	// so far).
	CostUSD   *float64
	Exhausted bool
	// NoComment says why a confirmed finding has no line comment, by its
	// index in Findings: its line is not in the pull request's diff, or
	// GitHub refused the line comments. The body says so. Post sets it.
	NoComment map[int]string
}

// Confirmed and Unconfirmed count the findings of each kind.
func (r Result) Confirmed() int   { return countIf(r.Findings, true) }
func (r Result) Unconfirmed() int { return countIf(r.Findings, false) }

func countIf(fs []Finding, confirmed bool) int {
	n := 0
	for _, f := range fs {
		if f.Confirmed == confirmed {
			n++
		}
	}
	return n
}

// Body is the review's text: what core did (and did not do), the
// confirmed findings with their evidence, the unconfirmed ones folded,
// the harness's checks on base and head, the pull request's tests, the
// model's review, the spending, and the marker that finds this head's
// review again. A body over GitHub's limit loses the model's summary
// first, then the unconfirmed findings, then the confirmed ones'
// suggested tests; never a confirmed finding's command or exit.
func Body(r Result) string {
	p := parts{r: r, summary: closeFences(strings.TrimSpace(r.Summary)), unconfirmed: r.Unconfirmed(), files: true}
	if p.summary == "" {
		p.summary = "(The model said nothing.)"
	}
	body := p.render()
	if len(body) > maxBody {
		p.cuts = append(p.cuts, "the model's summary")
		p.summary = ""
		room := maxBody - len(p.render())
		if room > 200 {
			p.summary = closeFences(cut(strings.TrimSpace(r.Summary), room-100))
		}
		body = p.render()
	}
	for len(body) > maxBody && p.unconfirmed > 0 {
		if !slices.Contains(p.cuts, "unconfirmed findings") {
			p.cuts = append(p.cuts, "unconfirmed findings")
		}
		p.unconfirmed = max(p.unconfirmed-max(p.unconfirmed/2, 1), 0)
		body = p.render()
	}
	if len(body) > maxBody {
		p.cuts, p.files = append(p.cuts, "the suggested tests"), false
		body = p.render()
	}
	return body
}

// parts is a body being fitted under maxBody: how much of the summary and
// of the unconfirmed findings it keeps, whether it shows the suggested
// tests, and what it cut.
type parts struct {
	r           Result
	summary     string
	unconfirmed int // how many of them to list
	files       bool
	cuts        []string
}

func (p parts) render() string {
	r := p.r
	var b strings.Builder
	fmt.Fprintf(&b, "core reviewed this head (%s) against the base (%s), session `%s`. It changed no code and pushed nothing.\n\n",
		clip.Hash(r.Head), clip.Hash(r.Base), r.SessionID)
	p.writeConfirmed(&b)
	p.writeUnconfirmed(&b)
	b.WriteString(checksTable(r.Contract))
	if r.Tests != nil {
		b.WriteString("\n" + testclass.Markdown(*r.Tests))
	}
	b.WriteString("\n### Review\n\n")
	if p.summary != "" {
		b.WriteString(p.summary + "\n")
	}
	if len(p.cuts) > 0 {
		fmt.Fprintf(&b, "\n(Cut to fit GitHub's limit: %s.)\n", strings.Join(p.cuts, ", "))
	}
	b.WriteString("\n" + footer(r) + "\n\n" + status.ReviewMarker(r.Head) + "\n")
	return b.String()
}

// writeConfirmed writes the confirmed findings, each with its evidence.
func (p parts) writeConfirmed(b *strings.Builder) {
	n := p.r.Confirmed()
	if n == 0 {
		b.WriteString("**No confirmed finding**: no reproduction the harness ran failed on the head as a finding predicted.\n\n")
		return
	}
	fmt.Fprintf(b, "### %d confirmed %s\n\n", n, plural(n, "finding", "findings"))
	k := 0
	for i, f := range p.r.Findings {
		if !f.Confirmed {
			continue
		}
		k++
		fmt.Fprintf(b, "#### %d. %s\n\n", k, codeSpan(f.where()))
		if why := p.r.NoComment[i]; why != "" {
			fmt.Fprintf(b, "_%s: this finding has no line comment._\n\n", why)
		}
		b.WriteString(evidence(f, p.files) + "\n")
	}
}

// writeUnconfirmed writes the first p.unconfirmed unconfirmed findings in
// one folded block, and how many were left out.
func (p parts) writeUnconfirmed(b *strings.Builder) {
	total := p.r.Unconfirmed()
	if total == 0 {
		return
	}
	fmt.Fprintf(b, "<details><summary>%d unconfirmed %s (no reproduction the harness ran confirmed %s)</summary>\n\n",
		total, plural(total, "finding", "findings"), plural(total, "it", "them"))
	shown := 0
	for _, f := range p.r.Findings {
		if f.Confirmed || shown == p.unconfirmed {
			continue
		}
		shown++
		fmt.Fprintf(b, "- %s: %s", codeSpan(f.where()), oneLine(f.Claim))
		if why := oneLine(f.Why); why != "" {
			fmt.Fprintf(b, " (%s)", why)
		}
		b.WriteString("\n")
	}
	if left := total - shown; left > 0 {
		fmt.Fprintf(b, "- … and %d more, left out to fit GitHub's limit\n", left)
	}
	b.WriteString("\n</details>\n\n")
}

// checksTable is the contract's table, in a review's words (Words).
func checksTable(c *contract.Contract) string {
	return Words(c.Markdown())
}

// reviewWords puts the contract's words for a change run into a
// review's: its start commit is the base, its result the head, and what
// no check held is the pull request, not a patch of core's.
var reviewWords = strings.NewReplacer(
	"on the start commit and on the result", "on the base and on the head",
	"no checks on the result — this patch is UNVERIFIED", "no checks on the head — the pull request is UNVERIFIED",
)

// Words says the contract's text (its table, its lines) in a review's
// words.
func Words(s string) string { return reviewWords.Replace(s) }

// footer is the run's spending, and a word when its budget ran out.
func footer(r Result) string {
	s := fmt.Sprintf("Turns: %d, tokens: %d, cost_usd: %s.", r.Turns, r.Tokens, costWords(r.CostUSD))
	if r.Exhausted {
		s += "\n\nThe run's budget ran out: this review holds what the harness confirmed so far."
	}
	return s
}

// costWords is the cost as the footer says it: the Action's figure, or
// "unknown".
func costWords(c *float64) string {
	if c == nil {
		return "unknown"
	}
	return budget.CostFigure(c)
}

// oneLine is the model's words on one line, made safe (text) and clipped.
func oneLine(s string) string { return clip.Line(text(strings.Join(strings.Fields(s), " ")), 500) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// cut keeps at most n bytes of s, never splitting a character.
func cut(s string, n int) string {
	r := []rune(s)
	out := 0
	for i, c := range r {
		if out+len(string(c)) > n {
			return string(r[:i])
		}
		out += len(string(c))
	}
	return s
}
