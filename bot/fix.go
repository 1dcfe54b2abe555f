package bot

import "context"

// fixCommand is /core fix [instruction]: on an issue a fix run, on a pull
// request a resolve run.
type fixCommand struct{}

func (fixCommand) name() string { return "fix" }

func (fixCommand) run(ctx context.Context, b *Base, req *request) error { return b.start(ctx, req) }
