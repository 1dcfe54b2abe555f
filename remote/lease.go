package remote

import (
	"context"
	"fmt"
	"time"
)

// keepLease renews cmd's lease at half its remaining time for as long as
// the session runs, so a session longer than the console's lease keeps its
// claim; the returned stop ends it.
func (s *Serve) keepLease(ctx context.Context, cmd *Command) (stop func()) {
	if cmd.LeaseUntil.IsZero() {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		until := cmd.LeaseUntil
		for {
			t := time.NewTimer(max(time.Until(until)/2, time.Second))
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			renewed, err := s.Console.Renew(ctx, cmd.ID, cmd.Claim)
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				fmt.Fprintf(s.Out, "serve: %v\n", err)
				until = time.Now().Add(2 * time.Second) // try again soon
				continue
			}
			until = renewed.LeaseUntil
			if s.OnRenew != nil {
				s.OnRenew(renewed)
			}
		}
	}()
	return func() { cancel(); <-done }
}
