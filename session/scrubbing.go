package session

import (
	"context"

	"github.com/coreagent/core/session/scrub"
	"github.com/coreagent/core/session/tools"
)

// scrubbingApprover shows the human the gated action with every secret
// removed: the terminal is an edge too.
type scrubbingApprover struct {
	a     tools.Approver
	scrub *scrub.Scrubber
}

func (sa scrubbingApprover) Approve(ctx context.Context, action string) (bool, error) {
	return sa.a.Approve(ctx, sa.scrub.String(action))
}

// Attended passes on whether the wrapped approver asks a person.
func (sa scrubbingApprover) Attended() bool { return tools.Attended(sa.a) }

// scrubArgs scrubs every string in a parsed action's arguments, in place:
// a secret the reply spelled in escapes (JSON's \u0067) decodes only here.
func scrubArgs(args map[string]any, scrub func(string) string) {
	for k, v := range args {
		args[k] = scrubValue(v, scrub)
	}
}

func scrubValue(v any, scrub func(string) string) any {
	switch v := v.(type) {
	case string:
		return scrub(v)
	case map[string]any:
		scrubArgs(v, scrub)
	case []any:
		for i := range v {
			v[i] = scrubValue(v[i], scrub)
		}
	}
	return v
}
