package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/protocol"
	"github.com/coreagent/core/session/tools"
)

// How actions travel between core and the model (Inference.ToolCalls).
const (
	ToolCallsText   = "text"   // in the reply's text, as the prompt shows
	ToolCallsNative = "native" // OpenAI function calling: tools in the request, tool_calls in the reply
	ToolCallsAuto   = "auto"   // native when the server takes tools, else text
)

func validToolCalls(mode string) bool {
	return mode == ToolCallsText || mode == ToolCallsNative || mode == ToolCallsAuto
}

// Defaults for Inference.
const (
	DefaultContextTokens = 32768
	DefaultModel         = "coder"
)

// Inference is the model a run talks to, and how.
type Inference struct {
	// Model is the model name sent to the endpoint; InferenceURL is only
	// recorded.
	Model        string
	InferenceURL string
	Think        bool
	// ToolCalls is how actions travel: ToolCallsText (the default: the
	// reply's text), ToolCallsNative (OpenAI function calling) or
	// ToolCallsAuto (native when the server takes tools).
	ToolCalls     string
	ContextTokens int // estimated tokens a request may hold
}

// withDefaults fills the zero values.
func (i Inference) withDefaults() Inference {
	if i.ContextTokens == 0 {
		i.ContextTokens = DefaultContextTokens
	}
	if i.Model == "" {
		i.Model = DefaultModel
	}
	if i.ToolCalls == "" {
		i.ToolCalls = ToolCallsText
	}
	return i
}

// checkToolCalls refuses a way of tool calls core does not know.
func (i Inference) checkToolCalls() error {
	if !validToolCalls(i.ToolCalls) {
		return optionError("tool-calls", "must be text, native or auto, got %q", i.ToolCalls)
	}
	return nil
}

// checkContext refuses a context too small for a turn.
func (i Inference) checkContext() error {
	if i.ContextTokens < 1024 {
		return optionError("context-tokens", "must be at least 1024, got %d", i.ContextTokens)
	}
	return nil
}

// ToolCompleter is a Completer that can offer tools natively;
// *model.Client is one.
type ToolCompleter interface {
	CompleteTools(ctx context.Context, msgs []model.Message, tools []model.Tool) (model.Reply, error)
}

// ToolProber asks a server whether it takes native tool calls;
// *model.Client is one.
type ToolProber interface {
	SupportsTools(ctx context.Context) (bool, error)
}

var (
	_ ToolCompleter = (*model.Client)(nil)
	_ ToolProber    = (*model.Client)(nil)
)

// resolveToolCalls turns the option into the mode a new session runs
// with: auto asks the server once and falls back to text.
func resolveToolCalls(ctx context.Context, opts Options) (string, error) {
	_, completes := opts.Services.Client.(ToolCompleter)
	switch opts.Inference.ToolCalls {
	case ToolCallsNative:
		if !completes {
			return "", errors.New("--tool-calls native: the model client cannot offer tools")
		}
		return ToolCallsNative, nil
	case ToolCallsAuto:
		prober, ok := opts.Services.Client.(ToolProber)
		if !ok || !completes {
			return ToolCallsText, nil
		}
		native, err := prober.SupportsTools(ctx)
		switch {
		case err != nil:
			zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not ask the model server about tool calls; using text.")
			fmt.Fprintf(opts.Live.Progress, "tool calls: text (could not ask the model server: %v)\n", err)
		case native:
			fmt.Fprintln(opts.Live.Progress, "tool calls: native (the model server takes tools)")
			return ToolCallsNative, nil
		default:
			fmt.Fprintln(opts.Live.Progress, "tool calls: text (the model server refused or ignored tools)")
		}
		return ToolCallsText, nil
	}
	return ToolCallsText, nil
}

// native reports whether the run offers the tools natively.
func (s *run) native() bool { return s.rec.ToolCalls == ToolCallsNative }

// nativeTools are the tool set's function definitions.
func nativeTools(set *tools.Set) []model.Tool {
	var docs []protocol.ToolDoc
	for _, name := range set.Names() {
		t, _ := set.Lookup(name)
		d := protocol.ToolDoc{Name: name, Doc: t.Doc()}
		// A tool with a schema of its own (an MCP server's) gives it.
		if sc, ok := t.(interface{ Schema() json.RawMessage }); ok {
			d.Schema = sc.Schema()
		}
		docs = append(docs, d)
	}
	return protocol.Tools(docs)
}

// replyEntry is the transcript entry of a reply. In native mode the tool
// calls are kept as such; in text mode they are written into the content
// (the Hermes form), so the text transcript holds them and parses the same.
func (s *run) replyEntry(reply model.Reply) budget.Entry {
	e := budget.Entry{Role: model.RoleAssistant, Content: reply.Content, Kind: budget.KindReply, Turn: s.rec.Turns}
	if len(reply.ToolCalls) == 0 {
		return e
	}
	if s.native() {
		e.ToolCalls = make([]model.ToolCall, len(reply.ToolCalls))
		for i, c := range reply.ToolCalls {
			if c.ID == "" {
				// A server that sends no ids still gets its calls
				// answered one by one.
				c.ID = fmt.Sprintf("core_%d_%d", s.rec.Turns, i+1)
			}
			e.ToolCalls[i] = c
		}
		return e
	}
	if e.Content != "" {
		e.Content += "\n\n"
	}
	e.Content += protocol.RenderCalls(reply.ToolCalls)
	return e
}

// parseReply finds the action in a reply entry.
func parseReply(e budget.Entry, known []string) (protocol.Action, error) {
	if len(e.ToolCalls) > 0 {
		return protocol.ParseCalls(e.ToolCalls, known)
	}
	return protocol.Parse(e.Content, known)
}

// answers are the entries that answer a reply: the observation (or
// correction) text goes to the first native call, by its id, and every
// other call is told it did not run; a reply without native calls is
// answered by one user message.
func answers(reply budget.Entry, kind, text string, turn int) []budget.Entry {
	if len(reply.ToolCalls) == 0 {
		return []budget.Entry{{Role: model.RoleUser, Content: text, Kind: kind, Turn: turn}}
	}
	out := make([]budget.Entry, 0, len(reply.ToolCalls))
	for i, c := range reply.ToolCalls {
		content := text
		if i > 0 {
			content = fmt.Sprintf("not run: only one action runs per turn (%s was not run)", c.Name)
		}
		out = append(out, budget.Entry{Role: model.RoleTool, ToolCallID: c.ID, Content: content, Kind: kind, Turn: turn})
	}
	return out
}
