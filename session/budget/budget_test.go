package budget

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/session/model"
)

// randomText is n bytes of text with what makes JSON grow: newlines, tabs,
// quotes, <>&, and multi-byte runes.
func randomText(r *rand.Rand, n int) string {
	pieces := []string{"func main() {\n", "\tx := \"<a>&b\"\n", "}\n", "héllo wörld ", "日本語 ", "return nil\n", "\\n", "abcdefgh "}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// session is a random transcript grown turn by turn: each step is the
// entries a turn of the loop appends before the next request.
type randomSession struct {
	system       string
	instructions []string
	steps        [][]Entry
}

func newRandomSession(r *rand.Rand, budget int) randomSession {
	s := randomSession{system: randomText(r, 200+r.IntN(6000))}
	segments := 1 + r.IntN(3)
	turn := 0
	for seg := range segments {
		ins := randomText(r, 20+r.IntN(3000))
		s.instructions = append(s.instructions, ins)
		s.steps = append(s.steps, []Entry{{Role: model.RoleUser, Content: ins, Kind: KindInstruction}})
		for range 5 + r.IntN(40) {
			turn++
			reply := Entry{Role: model.RoleAssistant, Content: randomText(r, 10+r.IntN(1500)), Kind: KindReply, Turn: turn}
			var answer Entry
			switch r.IntN(10) {
			case 0:
				answer = Entry{Role: model.RoleUser, Content: "Your reply held no valid action: " + randomText(r, 50), Kind: KindCorrection, Turn: turn}
			case 1:
				// An uncapped result, larger than an observation may be.
				answer = Entry{Role: model.RoleUser, Content: "Result of run_shell:\n" + randomText(r, r.IntN(40000)), Kind: KindObservation, Turn: turn}
			default:
				answer = Entry{Role: model.RoleUser, Content: "Result of read_file:\n" + randomText(r, r.IntN(ObservationLimit(budget))), Kind: KindObservation, Turn: turn}
			}
			s.steps = append(s.steps, []Entry{reply, answer})
		}
		if seg < segments-1 {
			// done ends the instruction; the next follows its reply.
			turn++
			s.steps[len(s.steps)-1] = append(s.steps[len(s.steps)-1], Entry{Role: model.RoleAssistant, Content: "tool: done\nsummary: " + randomText(r, 100), Kind: KindReply, Turn: turn})
		}
	}
	return s
}

func TestContextWindowHolds(t *testing.T) {
	t.Parallel()
	budgets := []int{1024, 1500, 2048, 4096, 6000, 8192, 16384, 32768}
	for _, budget := range budgets {
		for seed := range 12 {
			t.Run(fmt.Sprintf("budget=%d/seed=%d", budget, seed), func(t *testing.T) {
				t.Parallel()
				r := rand.New(rand.NewPCG(uint64(budget), uint64(seed)))
				s := newRandomSession(r, budget)
				w := NewContextWindow(budget)
				entries := []Entry{{Role: model.RoleSystem, Content: s.system, Kind: KindSystem}}
				var prev []model.Message
				for n, step := range s.steps {
					entries = append(entries, step...)
					blocks := w.stats.blocks
					msgs := w.Request(entries)
					est := RequestEstimate(msgs)
					require.LessOrEqual(t, est, budget, "request %d is over the budget", n)
					assert.Equal(t, w.stats.largest, max(w.stats.largest, est))
					last := entries[len(entries)-1]
					assert.Equal(t, last.Role, msgs[len(msgs)-1].Role, "request %d ends with the latest message", n)
					if small := RequestEstimate([]model.Message{{Role: model.RoleSystem, Content: s.system}}) + len(s.instructions)*1000; small < budget/2 {
						assert.Equal(t, s.system, msgs[0].Content, "request %d keeps the system prompt", n)
						assertInstructionsKept(t, entries, msgs)
					}
					if w.stats.blocks == blocks && prev != nil {
						require.GreaterOrEqual(t, len(msgs), len(prev))
						assert.Equal(t, prev, msgs[:len(prev)], "request %d elided nothing, so it begins with the one before", n)
					}
					assertAlternates(t, msgs)
					prev = msgs
				}
				assert.Equal(t, len(s.steps), w.stats.requests)
			})
		}
	}
}

// assertInstructionsKept checks that every instruction of the transcript
// begins a message of the request, in order.
func assertInstructionsKept(t *testing.T, entries []Entry, msgs []model.Message) {
	t.Helper()
	j := 0
	for _, e := range entries {
		if e.Kind != KindInstruction {
			continue
		}
		for j < len(msgs) && !(msgs[j].Role == model.RoleUser && strings.HasPrefix(msgs[j].Content, e.Content)) {
			j++
		}
		if !assert.Less(t, j, len(msgs), "instruction %.40q is missing", e.Content) {
			return
		}
		j++
	}
}

// assertAlternates checks that no two replies of the model follow each
// other and that every reply follows a message from the user side.
func assertAlternates(t *testing.T, msgs []model.Message) {
	t.Helper()
	for i := 1; i < len(msgs); i++ {
		if msgs[i].Role == model.RoleAssistant {
			assert.Equal(t, model.RoleUser, msgs[i-1].Role, "message %d, a reply, follows a %s message", i, msgs[i-1].Role)
		}
	}
}

func TestContextWindowElidesInBlocks(t *testing.T) {
	t.Parallel()
	const budget = 8192
	w := NewContextWindow(budget)
	entries := []Entry{
		{Role: model.RoleSystem, Content: "the system prompt", Kind: KindSystem},
		{Role: model.RoleUser, Content: "the instruction", Kind: KindInstruction},
	}
	obs := "Result of read_file:\n" + strings.Repeat("a line of a file\n", 50) // 850 bytes
	var sizes []int
	var blocks []int
	for turn := 1; turn <= 60; turn++ {
		entries = append(entries,
			Entry{Role: model.RoleAssistant, Content: "tool: read_file\npath: f.go", Kind: KindReply, Turn: turn},
			Entry{Role: model.RoleUser, Content: obs, Kind: KindObservation, Turn: turn})
		before := w.stats.blocks
		msgs := w.Request(entries)
		sizes = append(sizes, RequestEstimate(msgs))
		if w.stats.blocks > before {
			blocks = append(blocks, turn)
			assert.LessOrEqual(t, RequestEstimate(msgs), budget*lowWaterPercent/100, "turn %d: a block elision goes down to the low-water mark", turn)
		}
	}
	// 60 turns of 850 bytes make ~18,000 tokens: a few blocks, not one
	// elision a turn.
	assert.GreaterOrEqual(t, len(blocks), 2)
	assert.LessOrEqual(t, len(blocks), 8, "block elisions at turns %v", blocks)
	for i, s := range sizes {
		assert.LessOrEqual(t, s, budget, "turn %d", i+1)
	}
	snap := w.stats.snapshot()
	assert.Equal(t, 60, snap.Requests)
	assert.GreaterOrEqual(t, snap.PrefixReuseMedian, 0.9)
	assert.Equal(t, len(blocks), snap.BlockElisions)
}

func TestContextWindowMasksOldResults(t *testing.T) {
	t.Parallel()
	w := NewContextWindow(32768) // session.DefaultContextTokens
	entries := []Entry{
		{Role: model.RoleSystem, Content: "sys", Kind: KindSystem},
		{Role: model.RoleUser, Content: "go", Kind: KindInstruction},
	}
	long := "tool: write_file\npath: a.go\ncontent: " + strings.Repeat("x", 2000)
	for turn := 1; turn <= maxWhole+2; turn++ {
		reply := "tool: read_file\npath: f.go"
		if turn == 1 {
			reply = long
		}
		entries = append(entries,
			Entry{Role: model.RoleAssistant, Content: reply, Kind: KindReply, Turn: turn},
			Entry{Role: model.RoleUser, Content: "Result of read_file:\nsmall", Kind: KindObservation, Turn: turn})
	}
	msgs := w.Request(entries)
	require.Len(t, msgs, len(entries), "masking keeps every message")
	assert.Equal(t, "[turn 1: a reply of 2037 characters, elided to save context; it began: tool: write_file]", msgs[2].Content)
	assert.Equal(t, "[turn 1: the result of read_file (26 characters), elided to save context; repeat the call if you need it]", msgs[3].Content)
	assert.Equal(t, "tool: read_file\npath: f.go", msgs[4].Content, "a short reply stays")
	whole := 0
	for _, m := range msgs {
		if m.Content == "Result of read_file:\nsmall" {
			whole++
		}
	}
	assert.Equal(t, keepWhole+1, whole, "the latest exchange and keepWhole before it stay whole")
}

func TestContextWindowDropsAndCuts(t *testing.T) {
	t.Parallel()
	const budget = 1024
	w := NewContextWindow(budget)
	instruction := strings.Repeat("a long instruction. ", 300) // 6 KB: alone over the budget
	entries := []Entry{
		{Role: model.RoleSystem, Content: "sys", Kind: KindSystem},
		{Role: model.RoleUser, Content: instruction, Kind: KindInstruction},
	}
	for turn := 1; turn <= 5; turn++ {
		entries = append(entries,
			Entry{Role: model.RoleAssistant, Content: "tool: list_dir", Kind: KindReply, Turn: turn},
			Entry{Role: model.RoleUser, Content: "Result of list_dir:\n" + strings.Repeat("f.go\n", 100), Kind: KindObservation, Turn: turn})
	}
	msgs := w.Request(entries)
	assert.LessOrEqual(t, RequestEstimate(msgs), budget)
	require.Len(t, msgs, 4, "system, instruction, the latest exchange")
	assert.Equal(t, "sys", msgs[0].Content)
	assert.True(t, strings.HasPrefix(msgs[1].Content, "a long instruction. "))
	assert.Contains(t, msgs[1].Content, "bytes cut here to fit the context budget")
	assert.True(t, strings.HasSuffix(msgs[1].Content, "[core: turns 1-4, which followed this instruction, were left out to fit the context budget; what they changed in the workspace stays. Read files again if you need them.]"))
	assert.Equal(t, "tool: list_dir", msgs[2].Content)
	head, _, _ := strings.Cut(msgs[1].Content, "\n[... ")
	// The next turn appends, unless it needs another block.
	entries = append(entries,
		Entry{Role: model.RoleAssistant, Content: "tool: git_diff", Kind: KindReply, Turn: 6},
		Entry{Role: model.RoleUser, Content: "Result of git_diff:\n(no changes)", Kind: KindObservation, Turn: 6})
	blocks := w.stats.blocks
	next := w.Request(entries)
	assert.LessOrEqual(t, RequestEstimate(next), budget)
	if w.stats.blocks == blocks {
		assert.Equal(t, msgs, next[:len(msgs)])
	}
	// A cut, once made, stays.
	assert.True(t, strings.HasPrefix(next[1].Content, head+"\n[... "), "the instruction is cut where it was")
}

func TestPrefixShare(t *testing.T) {
	t.Parallel()
	a := model.Message{Role: "user", Content: "aaaa"}
	b := model.Message{Role: "assistant", Content: "bbbb"}
	c := model.Message{Role: "user", Content: "cccc"}
	c2 := model.Message{Role: "user", Content: "ccXX"}
	tests := []struct {
		name      string
		prev, cur []model.Message
	}{
		{name: "appended", prev: []model.Message{a, b}, cur: []model.Message{a, b, c}},
		{name: "same", prev: []model.Message{a, b, c}, cur: []model.Message{a, b, c}},
		{name: "changed inside", prev: []model.Message{a, b, c}, cur: []model.Message{a, b, c2}},
		{name: "shorter", prev: []model.Message{a, b, c}, cur: []model.Message{a, b}},
		{name: "nothing shared", prev: []model.Message{b}, cur: []model.Message{c}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pj, cj := arrayJSON(tt.prev), arrayJSON(tt.cur)
			n := 0
			for n < len(pj) && n < len(cj) && pj[n] == cj[n] {
				n++
			}
			sizes := make([]int, len(tt.cur))
			for i, m := range tt.cur {
				sizes[i] = WireSize(m.Role, m.Content)
			}
			assert.InDelta(t, float64(n)/float64(len(cj)), PrefixShare(tt.prev, tt.cur, sizes), 1e-9)
		})
	}
}

// arrayJSON is the JSON array of msgs as go-openai would send it.
func arrayJSON(msgs []model.Message) string {
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		b, _ := jsonMessage(m)
		parts[i] = string(b)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func TestObservationLimit(t *testing.T) {
	t.Parallel()
	tests := []struct{ budget, want int }{
		{budget: 1024, want: 1024},
		{budget: 4096, want: 1536},
		{budget: 8192, want: 3072},
		{budget: 32768, want: 12288},
		{budget: 1 << 20, want: 16 << 10},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.budget), func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, ObservationLimit(tt.budget))
			// One observation, with its framing, is at most an eighth of
			// the budget, or a small one at tiny budgets.
			assert.LessOrEqual(t, messageTokens(tt.want), max(tt.budget/observationShare+messageFraming+1, 350))
		})
	}
}

func TestWireSizeIsTheJSONs(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	tests := []string{"", "plain", "<a href=\"x\">&amp;</a>", "\b\f\n\r\t\x00\x1f\x7f", "\u2028\u2029", "\xff\xfe bad", "日本語 é 😀", string([]byte{0xe6, 0x97})}
	for range 200 {
		b := make([]byte, r.IntN(300))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		tests = append(tests, string(b), randomText(r, r.IntN(500)))
	}
	for i, content := range tests {
		for _, role := range []string{model.RoleSystem, model.RoleUser, model.RoleAssistant} {
			want, err := jsonMessage(model.Message{Role: role, Content: content})
			require.NoError(t, err)
			if got := WireSize(role, content); got != len(want) {
				t.Errorf("case %d, %s %q: WireSize = %d, the JSON is %d bytes: %s", i, role, content, got, len(want), want)
			}
		}
	}
}

// TestBudgetNativeCalls: the arguments of native tool calls count toward
// the budget, and a masked call keeps its id and name (the tool message
// that answers it still names it) while its arguments go.
func TestBudgetNativeCalls(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 40000)
	entries := []Entry{
		{Role: model.RoleSystem, Content: "system prompt", Kind: KindSystem},
		{Role: model.RoleUser, Content: "the instruction", Kind: KindInstruction},
	}
	w := NewContextWindow(32768)
	var msgs []model.Message
	for turn := 1; turn <= 10; turn++ {
		id := fmt.Sprintf("call_%d", turn)
		entries = append(entries,
			Entry{Role: model.RoleAssistant, Kind: KindReply, Turn: turn,
				ToolCalls: []model.ToolCall{{ID: id, Name: "write_file", Arguments: `{"path":"a","content":"` + big + `"}`}}},
			Entry{Role: model.RoleTool, ToolCallID: id, Content: "Result of write_file:\nwrote a", Kind: KindObservation, Turn: turn})
		msgs = w.Request(entries)
		assert.LessOrEqual(t, RequestEstimate(msgs), 32768, "turn %d", turn)
	}
	var first *model.Message
	for i := range msgs {
		if len(msgs[i].ToolCalls) > 0 && msgs[i].ToolCalls[0].ID == "call_1" {
			first = &msgs[i]
		}
	}
	if first != nil { // the oldest call may be dropped whole, with its answer
		assert.Equal(t, "write_file", first.ToolCalls[0].Name)
		assert.NotContains(t, first.ToolCalls[0].Arguments, big, "an old call's arguments go")
	}
	last := msgs[len(msgs)-2]
	require.Len(t, last.ToolCalls, 1)
	assert.Contains(t, last.ToolCalls[0].Arguments, big, "the last exchange is whole")
	assert.Equal(t, "call_10", msgs[len(msgs)-1].ToolCallID)
	// Every tool message answers a call the request still holds.
	calls := map[string]bool{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			calls[c.ID] = true
		}
		if m.ToolCallID != "" {
			assert.True(t, calls[m.ToolCallID], "tool message for %s follows its call", m.ToolCallID)
		}
	}
	assert.Contains(t, entries[2].ToolCalls[0].Arguments, big, "the transcript keeps everything")
}
