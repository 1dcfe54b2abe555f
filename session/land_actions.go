package session

import (
	"context"
	"fmt"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/tools"
)

// guardAt reads what the workflows of tree (a commit or a tree) run, from
// git's objects (land.Tree).
func (s *run) guardAt(ctx context.Context, tree string) (*tools.Guard, error) {
	g, err := tools.ReadGuard(ctx, s.git.landGit().Tree(s.rec.Workspace, tree))
	if err != nil {
		return nil, fmt.Errorf("read the workflows of %s: %w", clip.Hash(tree), err)
	}
	return g, nil
}
