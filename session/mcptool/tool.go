package mcptool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coreagent/core/session/scrub"
	"github.com/coreagent/core/session/tools"
)

// Bounds on what a server says of its tools.
const (
	maxName        = 64
	maxDescription = 1024
	maxSchema      = 16 << 10
)

// Declined is what the model sees when a call was not approved.
const Declined = "declined: the human operator did not approve this call (an MCP server's tools run unattended only when the user's settings mark the server so)"

// tool is one tool of a server, offered as mcp__<server>__<tool>.
type tool struct {
	name    string
	conn    *conn
	remote  string // the tool's name on its server
	desc    string
	schema  json.RawMessage
	props   []prop
	timeout time.Duration
	scrub   *scrub.Scrubber
}

// prop is one argument the schema declares.
type prop struct {
	Name, Type, Description string
	Required                bool
}

var _ tools.Tool = (*tool)(nil)

func newTool(name string, c *conn, t *mcp.Tool, timeout time.Duration) *tool {
	schema, props := inputSchema(t.InputSchema)
	return &tool{
		name: name, conn: c, remote: t.Name, desc: clean(t.Description, maxDescription),
		schema: schema, props: props, timeout: timeout, scrub: scrub.New(c.planned.Secrets...),
	}
}

func (t *tool) Name() string { return t.name }

// Schema is the server's JSON Schema of the arguments, for native calls.
func (t *tool) Schema() json.RawMessage { return t.schema }

// Doc shows the arguments from the schema, for the text protocol.
func (t *tool) Doc() string {
	var b strings.Builder
	desc := t.desc
	if desc == "" {
		desc = "a tool of the MCP server " + strconv.Quote(t.conn.planned.Name)
	}
	fmt.Fprintf(&b, "%s: %s\n  tool: %s\n", t.name, strings.ReplaceAll(desc, "\n", " "), t.name)
	var optional []string
	for _, p := range t.props {
		fmt.Fprintf(&b, "  %s: %s\n", p.Name, example(p.Type))
		if !p.Required {
			optional = append(optional, p.Name)
		}
	}
	fmt.Fprintf(&b, "A tool of the MCP server %q (%s).", t.conn.planned.Name, t.conn.planned.Where)
	for _, p := range t.props {
		fmt.Fprintf(&b, "\n%s (%s", p.Name, p.Type)
		if p.Required {
			b.WriteString(", required")
		}
		b.WriteString(")")
		if p.Description != "" {
			b.WriteString(": " + strings.ReplaceAll(p.Description, "\n", " "))
		}
	}
	if len(optional) > 0 {
		fmt.Fprintf(&b, "\nSo %s optional.", strings.Join(optional, " is optional, ")+" is")
	}
	return b.String()
}

func example(typ string) string {
	switch typ {
	case "integer", "number":
		return "1"
	case "boolean":
		return "true"
	case "string":
		return "text"
	}
	return "null"
}

// Run calls the tool: through the approval gate unless the user's
// settings mark its server unattended, within the call timeout. What goes
// wrong on the server's side (a hang, a death, a flood cut, an error it
// reports) is an observation; only the run's own end is an error.
func (t *tool) Run(ctx context.Context, env *tools.Env, args tools.Args) (tools.Result, error) {
	arguments := t.arguments(args)
	shown, _ := json.Marshal(arguments)
	res := tools.Result{Target: t.name}
	if !t.conn.planned.Unattended {
		ok, err := t.approve(ctx, env, fmt.Sprintf("%s (MCP server %q, %s): %s", t.name, t.conn.planned.Name, t.conn.planned.Where, shown))
		if err != nil {
			return tools.Result{}, err
		}
		if !ok {
			res.Output = Declined
			return res, nil
		}
	}
	cctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	r, err := t.conn.session.CallTool(cctx, &mcp.CallToolParams{Name: t.remote, Arguments: arguments})
	switch {
	case ctx.Err() != nil:
		return tools.Result{}, ctx.Err()
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		res.Output = fmt.Sprintf("%s: the MCP server %q did not answer within %s: the call was abandoned", t.name, t.conn.planned.Name, t.timeout)
		res.Note = res.Output
	case err != nil:
		res.Output = fmt.Sprintf("%s: the MCP server %q failed: %s", t.name, t.conn.planned.Name, clean(err.Error(), 512))
	default:
		res.Output = render(r)
	}
	res.Output = t.scrub.String(res.Output)
	return res, nil
}

func (t *tool) approve(ctx context.Context, env *tools.Env, action string) (bool, error) {
	var approver tools.Approver = tools.DenyApprover{}
	if env != nil && env.Approver != nil {
		approver = env.Approver
	}
	ok, err := approver.Approve(ctx, action)
	if err != nil {
		return false, fmt.Errorf("%s: ask for approval: %w", t.name, err)
	}
	return ok, nil
}

// arguments turns the call's arguments into the tool's: a numeric or
// boolean string (the text protocol's numbers) becomes the number or
// boolean the schema asks for.
func (t *tool) arguments(args tools.Args) map[string]any {
	out := make(map[string]any, len(args))
	types := map[string]string{}
	for _, p := range t.props {
		types[p.Name] = p.Type
	}
	for k, v := range args {
		s, isString := v.(string)
		switch {
		case isString && types[k] == "integer":
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				v = n
			}
		case isString && types[k] == "number":
			if n, err := strconv.ParseFloat(s, 64); err == nil {
				v = n
			}
		case isString && types[k] == "boolean":
			if b, err := strconv.ParseBool(s); err == nil {
				v = b
			}
		}
		out[k] = v
	}
	return out
}

// render is a result for the model: text as it is, other content
// described, not dumped.
func render(r *mcp.CallToolResult) string {
	var b strings.Builder
	if r.IsError {
		b.WriteString("the tool reported an error:\n")
	}
	for _, c := range r.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			b.WriteString(c.Text)
		case *mcp.ImageContent:
			fmt.Fprintf(&b, "[an image (%s, %d bytes), not shown]", clean(c.MIMEType, 64), len(c.Data))
		case *mcp.AudioContent:
			fmt.Fprintf(&b, "[audio (%s, %d bytes), not shown]", clean(c.MIMEType, 64), len(c.Data))
		case *mcp.ResourceLink:
			fmt.Fprintf(&b, "[a resource: %s]", clean(c.URI, 512))
		case *mcp.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				b.WriteString(c.Resource.Text)
			} else if c.Resource != nil {
				fmt.Fprintf(&b, "[a resource: %s, %d bytes, not shown]", clean(c.Resource.URI, 512), len(c.Resource.Blob))
			}
		default:
			fmt.Fprintf(&b, "[content of type %T, not shown]", c)
		}
		b.WriteString("\n")
	}
	if len(r.Content) == 0 && r.StructuredContent != nil {
		if data, err := json.Marshal(r.StructuredContent); err == nil {
			b.Write(data)
		}
	}
	if b.Len() == 0 {
		return "(the tool returned nothing)"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// inputSchema is the tool's schema as sent to the model (an object schema,
// bounded; anything else is replaced by an empty object schema) and its
// top-level properties for the text protocol's doc.
func inputSchema(v any) (json.RawMessage, []prop) {
	empty := json.RawMessage(`{"type":"object","properties":{}}`)
	data, err := json.Marshal(v)
	if err != nil || len(data) > maxSchema {
		return empty, nil
	}
	var s struct {
		Type       string `json:"type"`
		Properties map[string]struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(data, &s) != nil || s.Type != "object" {
		return empty, nil
	}
	var props []prop
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[name]
		typ, _ := p.Type.(string)
		if typ == "" {
			typ = "any"
		}
		props = append(props, prop{Name: clean(name, 64), Type: typ, Description: clean(p.Description, 256), Required: slices.Contains(s.Required, name)})
	}
	return data, props
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// uniqueName is mcp__<server>__<tool>, made of the characters a function
// name may hold, at most 64 of them, and unique among taken.
func uniqueName(server, name string, taken map[string]bool) string {
	base := "mcp__" + unsafeName.ReplaceAllString(server, "_") + "__" + unsafeName.ReplaceAllString(name, "_")
	if len(base) > maxName {
		base = base[:maxName]
	}
	out := base
	for i := 2; taken[out]; i++ {
		suffix := "_" + strconv.Itoa(i)
		out = base[:min(len(base), maxName-len(suffix))] + suffix
	}
	taken[out] = true
	return out
}

// clean bounds a server's text and drops its control characters but
// newlines and tabs.
func clean(s string, limit int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
	if len(s) > limit {
		s = strings.ToValidUTF8(s[:limit], "") + "..."
	}
	return s
}
