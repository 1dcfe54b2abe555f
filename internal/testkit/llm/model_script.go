package llm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// directivePrefix starts every directive line of a model script.
const directivePrefix = ">>> "

// ParseScript reads model replies from the script format described in the
// package documentation. Errors name the offending line.
func ParseScript(text string) ([]Reply, error) {
	p := scriptParser{}
	lines := strings.SplitAfter(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i, line := range lines {
		if line == "" { // after a final newline
			continue
		}
		if err := p.line(i+1, line); err != nil {
			return nil, err
		}
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	if err := p.danglingModifiers(); err != nil {
		return nil, err
	}
	return p.replies, nil
}

// scriptParser holds the section being read and the modifiers waiting for
// the next reply.
type scriptParser struct {
	replies []Reply

	// The open section: its directive, arguments, line and body.
	kind    string
	args    []string
	kindAt  int
	body    strings.Builder
	bodyAt  int // first non-blank body line, 0 if none
	started bool

	delay, usage *pendingModifier
	header       http.Header
	headerAt     int
}

type pendingModifier struct {
	at    int
	delay time.Duration
	usage Usage
}

func (p *scriptParser) line(n int, line string) error {
	bare := strings.TrimSuffix(line, "\n")
	if strings.HasPrefix(bare, ">>>") {
		if err := p.finish(); err != nil {
			return err
		}
		return p.directive(n, bare)
	}
	if !p.started {
		if trimmed := strings.TrimSpace(bare); trimmed == "" || strings.HasPrefix(trimmed, "#") {
			return nil
		}
		return fmt.Errorf("model script line %d: %q comes before the first %q directive (comments start with #)", n, bare, directivePrefix)
	}
	if p.bodyAt == 0 && strings.TrimSpace(bare) != "" {
		p.bodyAt = n
	}
	p.body.WriteString(line)
	return nil
}

func (p *scriptParser) directive(n int, bare string) error {
	if !strings.HasPrefix(bare, directivePrefix) {
		return fmt.Errorf("model script line %d: a directive is %q followed by a name, got %q", n, directivePrefix, bare)
	}
	fields := strings.Fields(bare[len(directivePrefix):])
	if len(fields) == 0 {
		return fmt.Errorf("model script line %d: directive has no name (want reply, tool_call, status, raw, delay, usage or header)", n)
	}
	p.started = true
	p.kind, p.args, p.kindAt = fields[0], fields[1:], n
	p.body.Reset()
	p.bodyAt = 0

	switch p.kind {
	case "reply":
		if len(p.args) != 0 {
			return fmt.Errorf("model script line %d: >>> reply takes no arguments, got %q", n, strings.Join(p.args, " "))
		}
	case "tool_call":
		if len(p.args) != 1 {
			return fmt.Errorf("model script line %d: want \">>> tool_call NAME\" followed by the arguments as a JSON object, got %q", n, bare)
		}
	case "status":
		if len(p.args) != 1 {
			return fmt.Errorf("model script line %d: want \">>> status CODE\", got %q", n, bare)
		}
		if _, err := parseStatus(p.args[0], 400); err != nil {
			return fmt.Errorf("model script line %d: %w", n, err)
		}
	case "raw":
		if len(p.args) > 1 {
			return fmt.Errorf("model script line %d: want \">>> raw\" or \">>> raw STATUS\", got %q", n, bare)
		}
		if len(p.args) == 1 {
			if _, err := parseStatus(p.args[0], 100); err != nil {
				return fmt.Errorf("model script line %d: %w", n, err)
			}
		}
	case "delay":
		if p.delay != nil {
			return fmt.Errorf("model script line %d: second >>> delay for one reply (the first is on line %d)", n, p.delay.at)
		}
		if len(p.args) != 1 {
			return fmt.Errorf("model script line %d: want \">>> delay DURATION\" such as \">>> delay 2s\", got %q", n, bare)
		}
		d, err := time.ParseDuration(p.args[0])
		if err != nil || d < 0 {
			return fmt.Errorf("model script line %d: delay %q is not a non-negative duration such as 2s or 150ms", n, p.args[0])
		}
		p.delay = &pendingModifier{at: n, delay: d}
	case "usage":
		if p.usage != nil {
			return fmt.Errorf("model script line %d: second >>> usage for one reply (the first is on line %d)", n, p.usage.at)
		}
		if len(p.args) != 2 {
			return fmt.Errorf("model script line %d: want \">>> usage PROMPT COMPLETION\" such as \">>> usage 120 30\", got %q", n, bare)
		}
		prompt, err1 := strconv.Atoi(p.args[0])
		completion, err2 := strconv.Atoi(p.args[1])
		if err1 != nil || err2 != nil || prompt < 0 || completion < 0 {
			return fmt.Errorf("model script line %d: usage wants two non-negative token counts, got %q", n, strings.Join(p.args, " "))
		}
		p.usage = &pendingModifier{at: n, usage: Usage{PromptTokens: prompt, CompletionTokens: completion}}
	case "header":
		rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(bare[len(directivePrefix):]), "header"))
		key, value, ok := strings.Cut(rest, ":")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			return fmt.Errorf("model script line %d: want \">>> header Name: value\" such as \">>> header Retry-After: 1\", got %q", n, bare)
		}
		if p.header == nil {
			p.header, p.headerAt = make(http.Header), n
		}
		p.header.Add(key, value)
	default:
		return fmt.Errorf("model script line %d: unknown directive %q (want reply, tool_call, status, raw, delay, usage or header)", n, p.kind)
	}
	return nil
}

// finish closes the open section, turning a reply directive and its body
// into a Reply that takes the pending modifiers.
func (p *scriptParser) finish() error {
	if !p.started {
		return nil
	}
	body := strings.TrimSuffix(p.body.String(), "\n")
	var r Reply
	switch p.kind {
	case "reply":
		r.Content = body
	case "tool_call":
		args := strings.TrimSpace(body)
		if args == "" {
			args = "{}"
		}
		if !json.Valid([]byte(args)) || !strings.HasPrefix(args, "{") {
			return fmt.Errorf("model script line %d: the arguments of >>> tool_call %s (line %d) are not a JSON object", max(p.bodyAt, p.kindAt), p.args[0], p.kindAt)
		}
		r.ToolCalls = []ToolCall{{Name: p.args[0], Arguments: args}}
	case "status":
		r.Status, _ = parseStatus(p.args[0], 400) // checked in directive
		r.Error = strings.TrimSpace(body)
	case "raw":
		r.Raw = []byte(body)
		if len(p.args) == 1 {
			r.Status, _ = parseStatus(p.args[0], 100) // checked in directive
		}
	default: // a modifier: it owns no lines
		if p.bodyAt != 0 {
			return fmt.Errorf("model script line %d: >>> %s (line %d) takes no content lines; put content under a >>> reply", p.bodyAt, p.kind, p.kindAt)
		}
		return nil
	}
	if p.delay != nil {
		r.Delay = p.delay.delay
	}
	if p.usage != nil {
		u := p.usage.usage
		r.Usage = &u
	}
	r.Header = p.header
	p.delay, p.usage, p.header, p.headerAt = nil, nil, nil, 0
	p.replies = append(p.replies, r)
	return nil
}

func (p *scriptParser) danglingModifiers() error {
	for _, m := range []struct {
		name string
		at   int
	}{{"delay", atOf(p.delay)}, {"usage", atOf(p.usage)}, {"header", p.headerAt}} {
		if m.at != 0 {
			return fmt.Errorf("model script line %d: >>> %s is not followed by a reply, status or raw directive", m.at, m.name)
		}
	}
	return nil
}

func atOf(m *pendingModifier) int {
	if m == nil {
		return 0
	}
	return m.at
}

func parseStatus(s string, lowest int) (int, error) {
	code, err := strconv.Atoi(s)
	if err != nil || code < lowest || code > 599 {
		return 0, fmt.Errorf("status %q is not an HTTP status from %d to 599", s, lowest)
	}
	return code, nil
}
