package budget

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/tools"
)

// How the context budget elides. An exchange is one reply of the model and
// the tool result or correction that answered it.
const (
	// lowWaterPercent is how far, in percent of the budget, one block
	// elision brings the request down.
	lowWaterPercent = 60
	// keepWhole is how many of the latest exchanges a masking block leaves
	// whole; maxWhole whole exchanges set one off.
	keepWhole = 12
	maxWhole  = 2 * keepWhole
	// observationShare: one observation holds at most 1/observationShare
	// of the budget.
	observationShare = 8
	// maskReplyOver is the size past which a reply is masked along with
	// its result; shorter replies stay, so the model sees what it did.
	maskReplyOver = 512
	// minCut is the fewest bytes a message cut to fit keeps.
	minCut = 128
)

// ObservationLimit is the most bytes one tool result may hold under a
// budget of contextTokens: an eighth of it, between 1 KiB and the tools'
// default.
func ObservationLimit(contextTokens int) int {
	return min(max(contextTokens*bytesPerToken/observationShare, 1<<10), tools.DefaultOutputLimit)
}

// ContextWindow turns the transcript into each request of a run, within
// the budget. Its decisions only grow, so that consecutive requests share
// their beginning (and the server's prompt cache with it) until the next
// block elision:
//
//   - when more than maxWhole exchanges are whole, the oldest are masked in
//     one block, down to keepWhole: a masked exchange keeps the model's
//     reply (when short) and replaces the result with a note;
//   - when the request would exceed the budget, older exchanges are masked,
//     then dropped altogether (a note on the instruction before them says
//     which turns went), oldest first, down to lowWaterPercent of the
//     budget;
//   - when even that is not enough, the largest messages are cut, keeping
//     their head and tail, until the request fits.
//
// The system prompt and the instructions are never masked or dropped, nor
// is the latest exchange; the transcript on disk keeps everything.
type ContextWindow struct {
	limit   int
	masked  int         // the oldest exchanges whose results are masked
	dropped int         // the oldest exchanges left out (dropped ≤ masked)
	cuts    map[int]int // entry index → bytes of content a cut keeps
	// Per entry, cached: the wire size whole, the masked note and its size.
	whole    []int
	note     []string
	noteSize []int
	// The last request's layout, how many entries it rendered, and the
	// decisions it was made under.
	last    layout
	lastN   int
	lastKey [3]int
	block   bool // the last request elided a block
	stats   contextStats
}

func NewContextWindow(limit int) *ContextWindow {
	return &ContextWindow{limit: limit, cuts: map[int]int{}, stats: contextStats{budget: limit}}
}

// exchange is the entries [first, last] of one exchange.
type exchange struct{ first, last int }

// exchanges groups the elidable entries: each reply opens an exchange, and
// the observations and corrections after it join it.
func exchanges(entries []Entry) []exchange {
	xs := make([]exchange, 0, len(entries)/2+1)
	for i, e := range entries {
		switch e.Kind {
		case KindReply:
			xs = append(xs, exchange{i, i})
		case KindObservation, KindCorrection:
			if n := len(xs); n > 0 && xs[n-1].last == i-1 {
				xs[n-1].last = i
			} else {
				xs = append(xs, exchange{i, i})
			}
		}
	}
	return xs
}

// Request builds the next request from the transcript and counts it as
// sent.
func (w *ContextWindow) Request(entries []Entry) []model.Message {
	msgs := w.Build(entries)
	w.Sent()
	return msgs
}

// Sent counts the request build made last as sent.
func (w *ContextWindow) Sent() {
	w.stats.record(w.last.msgs, w.last.sizes, w.last.est, w.block)
}

// LastEstimate is the estimate, in tokens, of the request Build made last.
func (w *ContextWindow) LastEstimate() int { return w.last.est }

// Stats returns the window's figures so far.
func (w *ContextWindow) Stats() ContextStats { return w.stats.snapshot() }

// Build builds the next request from the transcript; its estimate is
// w.last.est. sent counts it, once it goes.
func (w *ContextWindow) Build(entries []Entry) []model.Message {
	w.grow(len(entries))
	xs := exchanges(entries)
	// The latest exchange, the one the model answers now, stays.
	open := len(xs)
	if open > 0 && xs[open-1].last == len(entries)-1 {
		open--
	}
	block := false
	if open-w.masked > maxWhole {
		w.masked, block = open-keepWhole, true
	}
	l, ok := w.extend(entries, block)
	if !ok {
		l = w.render(entries, xs)
	}
	if l.est > w.limit {
		block = true
		low := w.limit * lowWaterPercent / 100
		for w.masked < open && l.est > low {
			w.masked++
			l = w.render(entries, xs)
		}
		for w.dropped < open && l.est > low {
			w.dropped++
			w.masked = max(w.masked, w.dropped)
			l = w.render(entries, xs)
		}
		for l.est > w.limit && w.cut(entries, l, w.limit) {
			l = w.render(entries, xs)
		}
	}
	w.last, w.lastN, w.lastKey, w.block = l, len(entries), w.key(), block
	return l.msgs
}

// key sums up the window's decisions: when it is unchanged, a request is
// the last one with the new entries appended whole.
func (w *ContextWindow) key() [3]int { return [3]int{w.masked, w.dropped, len(w.cuts)} }

// extend appends the entries after the last request's to its layout, when
// no decision changed since and the new entries open exchanges of their
// own (so none of them can be masked or dropped yet).
func (w *ContextWindow) extend(entries []Entry, block bool) (layout, bool) {
	if block || w.lastN == 0 || w.lastN > len(entries) || w.key() != w.lastKey {
		return layout{}, false
	}
	if w.lastN < len(entries) {
		if k := entries[w.lastN].Kind; k == KindObservation || k == KindCorrection {
			return layout{}, false
		}
	}
	l := w.last
	for i := w.lastN; i < len(entries); i++ {
		e := entries[i]
		m := model.Message{Role: e.Role, Content: e.Content, ToolCalls: e.ToolCalls, ToolCallID: e.ToolCallID}
		if w.whole[i] < 0 {
			w.whole[i] = messageSize(m)
		}
		l.msgs = append(l.msgs, m)
		l.sizes = append(l.sizes, w.whole[i])
		l.entry = append(l.entry, i)
		l.masked = append(l.masked, false)
		l.est += messageTokens(w.whole[i])
	}
	return l, true
}

func (w *ContextWindow) grow(n int) {
	for len(w.whole) < n {
		w.whole = append(w.whole, -1)
		w.note = append(w.note, "")
		w.noteSize = append(w.noteSize, -1)
	}
}

// layout is one rendering of the transcript: the messages, each one's wire
// size and entry, and the request's estimate.
type layout struct {
	msgs   []model.Message
	sizes  []int
	entry  []int  // the entry each message renders
	masked []bool // the message is a masked note
	est    int
}

// render lays the transcript out as the window's decisions say.
func (w *ContextWindow) render(entries []Entry, xs []exchange) layout {
	state := make([]byte, len(entries)) // 0 whole, 'm' masked, 'd' dropped
	droppedAfter := map[int][2]int{}    // instruction index → first and last dropped turn
	instruction := -1
	k := 0
	for i, e := range entries {
		if e.Kind == KindInstruction {
			instruction = i
		}
		for k < len(xs) && xs[k].last < i {
			k++
		}
		if k >= len(xs) || i < xs[k].first {
			continue
		}
		switch {
		case k < w.dropped && entries[xs[k].last].Role != model.RoleAssistant && instruction >= 0:
			// An exchange that ends with a reply (done, before the next
			// instruction) is masked instead, so roles still alternate.
			state[i] = 'd'
			r, ok := droppedAfter[instruction]
			if !ok {
				r[0] = e.Turn
			}
			r[1] = e.Turn
			droppedAfter[instruction] = r
		case k < w.masked && (e.Kind != KindReply || len(e.Content) > maskReplyOver):
			state[i] = 'm'
		}
	}
	n := len(entries) + 8 // room for the next turns to append
	l := layout{est: requestFraming, msgs: make([]model.Message, 0, n), sizes: make([]int, 0, n), entry: make([]int, 0, n), masked: make([]bool, 0, n)}
	for i, e := range entries {
		var content string
		var size int
		calls := e.ToolCalls
		switch state[i] {
		case 'd':
			continue
		case 'm':
			// A native call stays, for the tool message that answers it;
			// its arguments go.
			calls = elideCalls(e.ToolCalls)
			if w.noteSize[i] < 0 {
				w.note[i] = maskNote(e)
				w.noteSize[i] = messageSize(model.Message{Role: e.Role, Content: w.note[i], ToolCalls: calls, ToolCallID: e.ToolCallID})
			}
			content, size = w.note[i], w.noteSize[i]
		default:
			content = e.Content
			keep, isCut := w.cuts[i]
			if isCut {
				content = cutMiddle(content, keep)
			}
			r, dropped := droppedAfter[i]
			if dropped {
				content += dropNote(r[0], r[1])
			}
			m := model.Message{Role: e.Role, Content: content, ToolCalls: calls, ToolCallID: e.ToolCallID}
			if isCut || dropped {
				size = messageSize(m)
			} else {
				if w.whole[i] < 0 {
					w.whole[i] = messageSize(m)
				}
				size = w.whole[i]
			}
		}
		l.msgs = append(l.msgs, model.Message{Role: e.Role, Content: content, ToolCalls: calls, ToolCallID: e.ToolCallID})
		l.sizes = append(l.sizes, size)
		l.entry = append(l.entry, i)
		l.masked = append(l.masked, state[i] == 'm')
		l.est += messageTokens(size)
	}
	return l
}

// cut shortens the largest message that can still lose something by about
// what the request is over target, and reports whether there was one. The
// system prompt and the instructions are cut only when nothing else can be.
func (w *ContextWindow) cut(entries []Entry, l layout, target int) bool {
	best, bestLen, bestKept := -1, minCut, false
	for j, i := range l.entry {
		if l.masked[j] {
			continue
		}
		n := len(entries[i].Content)
		if keep, ok := w.cuts[i]; ok {
			n = keep
		}
		kept := entries[i].Kind == KindSystem || entries[i].Kind == KindInstruction
		if n > minCut && (best < 0 || bestKept && !kept || bestKept == kept && n > bestLen) {
			best, bestLen, bestKept = i, n, kept
		}
	}
	if best < 0 {
		return false
	}
	over := (l.est - target) * bytesPerToken
	w.cuts[best] = max(bestLen-over-len(cutMarker(bestLen))-16, minCut)
	return true
}

func maskNote(e Entry) string {
	switch e.Kind {
	case KindReply:
		first, _, _ := strings.Cut(e.Content, "\n")
		return fmt.Sprintf("[turn %d: a reply of %d characters, elided to save context; it began: %s]", e.Turn, len(e.Content), clip.Line(first, 80))
	case KindCorrection:
		return fmt.Sprintf("[turn %d: a correction, elided to save context]", e.Turn)
	}
	what := "an earlier tool result"
	if first, _, ok := strings.Cut(e.Content, "\n"); ok && strings.HasPrefix(first, "Result of ") {
		what = "the result of " + strings.TrimSuffix(strings.TrimPrefix(first, "Result of "), ":")
	}
	return fmt.Sprintf("[turn %d: %s (%d characters), elided to save context; repeat the call if you need it]", e.Turn, what, len(e.Content))
}

func dropNote(from, to int) string {
	turns := fmt.Sprintf("turn %d", from)
	if to != from {
		turns = fmt.Sprintf("turns %d-%d", from, to)
	}
	return fmt.Sprintf("\n\n[core: %s, which followed this instruction, were left out to fit the context budget; what they changed in the workspace stays. Read files again if you need them.]", turns)
}

func cutMarker(n int) string {
	return fmt.Sprintf("\n[... %d bytes cut here to fit the context budget ...]\n", n)
}

// cutMiddle keeps about keep bytes of s, its head and its tail, on UTF-8
// boundaries, with a line in the middle saying how much was cut.
func cutMiddle(s string, keep int) string {
	if len(s) <= keep {
		return s
	}
	head := keep / 2
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	tail := len(s) - (keep - head)
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + cutMarker(tail-head) + s[tail:]
}

// elideCalls keeps the calls' ids and names, and replaces their arguments
// with a note.
func elideCalls(calls []model.ToolCall) []model.ToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]model.ToolCall, len(calls))
	for i, c := range calls {
		c.Arguments = fmt.Sprintf(`{"elided":"arguments of %d characters, elided to save context"}`, len(c.Arguments))
		out[i] = c
	}
	return out
}
