package mcptool

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/coreagent/core/sandbox"
)

// RunBox runs the repository's servers in the run's box of a workspace:
// confined like the model's commands (no home, no network but the box's
// loopback, the box's limits), as background processes whose standard
// input and output are joined to the host by the box's pipe (fd 3 in,
// fd 4 out).
type RunBox struct {
	Sandbox   *sandbox.Sandbox
	Workspace string
}

var _ Box = RunBox{}

// StartServer starts argv in the box.
func (b RunBox) StartServer(ctx context.Context, argv, env []string) (io.ReadWriteCloser, func(), error) {
	box, err := b.Sandbox.Box(ctx, b.Workspace)
	if err != nil {
		return nil, nil, fmt.Errorf("the run's box, for an MCP server: %w", err)
	}
	wrapped := append([]string{"sh", "-c", `exec "$@" <&3 >&4`, "sh"}, argv...)
	p, err := box.Start(ctx, wrapped, sandbox.StartOptions{Env: env, Pipe: true})
	if err != nil {
		return nil, nil, fmt.Errorf("start %q in the run's box: %w", argv[0], err)
	}
	return p.Pipe(), p.Stopper(10 * time.Second), nil
}
