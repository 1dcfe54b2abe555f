// Package pause waits a while unless the context ends first: the one
// bounded wait of core's retries, polls and backoffs, which never sleep
// past the end of their run.
package pause

import (
	"context"
	"time"
)

// For waits d, or until ctx ends, returning ctx's error then.
func For(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
