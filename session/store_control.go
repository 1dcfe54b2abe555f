package session

import (
	"context"
	"fmt"

	"github.com/coreagent/core/session/live"
)

// Control sends one operation to the live session id through its socket
// (live.Call) and returns the run's acknowledgement. A session with no
// live run says so.
func (s *Store) Control(ctx context.Context, id, op, text string) (string, error) {
	rec, err := s.Load(id)
	if err != nil {
		return "", err
	}
	if !rec.Status.Live() {
		return "", fmt.Errorf("session %s is %s: only a live run (starting, active or idle) takes %s", id, rec.Status, op)
	}
	return live.Call(ctx, s.Dir(id), id, op, text)
}
