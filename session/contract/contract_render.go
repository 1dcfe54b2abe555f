package contract

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/coreagent/core/internal/clip"
)

// UnverifiedWarning is what a run says when no check held its result to
// anything.
const UnverifiedWarning = "warning: the harness ran no checks on the result — this patch is UNVERIFIED"

// FailingTitlePrefix starts the title of a pull request whose contract is
// broken.
const FailingTitlePrefix = "[checks failing] "

// verdictWords are the verdicts as the summary says them.
var verdictWords = map[CheckVerdict]string{
	VerdictRegressed:   "regressed",
	VerdictFailing:     "failing",
	VerdictTimedOut:    "timed out",
	VerdictError:       "could not run",
	VerdictEnvironment: "could not judge (the environment's)",
	VerdictFixed:       "fixed",
	VerdictPassing:     "passing",
}

func (c *Contract) timeout() time.Duration {
	return time.Duration(c.TimeoutSeconds * float64(time.Second))
}

// where says where a check ran.
func where(r CheckResult) string {
	if r.Sandboxed {
		return "sandboxed"
	}
	return "on the host"
}

// outcome says how one run ended, in words: exit 1, timed out after 2m0s,
// could not run: why.
func (c *Contract) outcome(r CheckResult) string {
	switch {
	case r.Error != "":
		return "could not run: " + r.Error
	case r.TimedOut:
		return "timed out after " + c.timeout().String()
	}
	return fmt.Sprintf("exit %d", r.Exit)
}

// detail says how long a run took and where it ran: (3.1s, sandboxed),
// with the wait for the module download under way when there was one.
func detail(r CheckResult) string {
	d := fmt.Sprintf("%.1fs, %s", r.Seconds, where(r))
	if r.WaitedSeconds >= 0.05 {
		d += fmt.Sprintf(", after %.1fs waiting for the module download", r.WaitedSeconds)
	}
	return "(" + d + ")"
}

// Line says the contract's verdict in one line: contract held, contract
// broken: 1 regressed, 1 failing, or the UNVERIFIED warning.
func (c *Contract) Line() string {
	skipped := ""
	switch n := c.inapplicable(); {
	case n == 1:
		skipped = " (1 check did not apply here)"
	case n > 1:
		skipped = fmt.Sprintf(" (%d checks did not apply here)", n)
	}
	switch {
	case c.None():
		return UnverifiedWarning + skipped
	case c.Held() && c.BaselineGatesNothing:
		return "contract held (every check already passed on the base: it gates nothing for this task)" + skipped
	case c.Held():
		return "contract held" + skipped
	case c.Unjudged():
		return "contract unjudged: " + c.unjudgedWords() + skipped
	}
	counts := map[CheckVerdict]int{}
	for _, r := range c.Checks {
		if !r.skipped() {
			counts[r.Verdict]++
		}
	}
	var parts []string
	for _, v := range verdictOrder {
		if n := counts[v]; n > 0 && !v.holds() {
			parts = append(parts, fmt.Sprintf("%d %s", n, verdictWords[v]))
		}
	}
	return "contract broken: " + strings.Join(parts, ", ") + skipped
}

// WriteText prints the contract for people: each check with both results
// in words, then the verdict line.
func (c *Contract) WriteText(w io.Writer) {
	if c != nil && len(c.Checks) > 0 {
		fmt.Fprintf(w, "checks (run by the harness on the start commit and on the result%s):\n", c.treeWords(""))
		for _, r := range c.Checks {
			res := c.outcome(r.Result)
			if r.Result.Error == "" {
				res += " " + detail(r.Result)
			}
			fmt.Fprintf(w, "  %s — %s: base %s, result %s\n", r.String(), verdictWords[r.Verdict], c.outcome(r.Baseline), res)
			if r.Verdict == VerdictEnvironment {
				fmt.Fprintf(w, "    UNVERIFIED: %s\n", envWords(r))
			}
		}
		if note := c.killedNote(); note != "" {
			fmt.Fprintf(w, "  %s\n", note)
		}
	}
	fmt.Fprintln(w, c.Line())
}

// Markdown renders the contract for a pull request body, a comment or a
// step summary: a table of the checks, then the verdict.
func (c *Contract) Markdown() string {
	var b strings.Builder
	b.WriteString("### Checks\n\n")
	if c.None() {
		b.WriteString("> [!WARNING]\n> The harness ran no checks on the result — this patch is UNVERIFIED.\n")
		if c == nil || len(c.Checks) == 0 {
			return b.String()
		}
		b.WriteString("\n")
	}
	b.WriteString("| check | verdict | base | result |\n|---|---|---|---|\n")
	for _, r := range c.Checks {
		verdict := verdictWords[r.Verdict]
		switch {
		case r.Verdict == VerdictEnvironment:
			verdict = "**UNVERIFIED**: " + MarkdownCell(verdict+": "+r.Cause)
		case !r.Verdict.holds():
			verdict = "**" + verdict + "**"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", MarkdownCell(r.String()), verdict, MarkdownCell(c.cell(r.Baseline)), MarkdownCell(c.cell(r.Result)))
	}
	if note := c.killedNote(); note != "" {
		fmt.Fprintf(&b, "\n%s%s.\n", strings.ToUpper(note[:1]), note[1:])
	}
	c.writeEnvironment(&b)
	if c.None() {
		b.WriteString("\nNo check applied to the result.\n")
		return b.String()
	}
	line := c.Line()
	fmt.Fprintf(&b, "\n**%s%s.**", strings.ToUpper(line[:1]), line[1:])
	fmt.Fprintf(&b, " The harness ran every check itself, on the start commit and on the result%s.\n", c.treeWords("`"))
	return b.String()
}

// treeWords names the tree the result checks ran on, the workspace frozen
// at done (its hash in quote marks q), or "" when the contract names none.
func (c *Contract) treeWords(q string) string {
	if c == nil || c.Tree == "" {
		return ""
	}
	return ", tree " + q + clip.Hash(c.Tree) + q
}

// StatusLine is the contract in a few words for a status comment.
func (c *Contract) StatusLine() string {
	switch {
	case c.None():
		return "**UNVERIFIED**: the harness ran no checks"
	case c.Held():
		passed, failed := c.Counts()
		return fmt.Sprintf("contract held: %d of %d checks pass", passed, passed+failed)
	case c.Unjudged():
		return "**UNVERIFIED**: " + c.Line()
	}
	return "**checks failing**: " + c.Line()
}

func (c *Contract) cell(r CheckResult) string {
	if r.Error != "" {
		return c.outcome(r)
	}
	return c.outcome(r) + " " + detail(r)
}

// MarkdownCell makes text safe inside a Markdown table cell: a pipe
// escaped, a backquote made a quote, one line of at most 200 characters.
func MarkdownCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "`", "'")
	return clip.Line(s, 200)
}
