package deps

import (
	"context"
	"sync"
	"time"
)

// Downloads is which workspaces have their Go modules downloaded, by the
// hash of their module files (FilesKey of GoModuleFiles), and the one
// download under way per workspace. Its zero value is ready; it is not
// copied once used.
type Downloads struct {
	mu         sync.Mutex
	downloaded map[string]string        // workspace → hash of the module files last downloaded
	fetching   map[string]chan struct{} // workspace → closed when its download under way ends
}

// Claim makes this command the one that downloads the workspace's
// modules for key: it returns the function that ends the claim, or nil
// when they are downloaded already. While another command (the warm-up)
// downloads them, it waits for that one, tells waiting so, and returns
// how long; a command needs its modules, so this is the one wait a go
// command has.
func (d *Downloads) Claim(ctx context.Context, ws, key string, waiting func(what string) (ended func())) (time.Duration, func(), error) {
	var start time.Time
	ended := func() {}
	defer func() { ended() }()
	for {
		d.mu.Lock()
		if d.downloaded[ws] == key {
			d.mu.Unlock()
			return since(start), nil, nil
		}
		busy, ok := d.fetching[ws]
		if !ok {
			mine := make(chan struct{})
			if d.fetching == nil {
				d.fetching = map[string]chan struct{}{}
			}
			d.fetching[ws] = mine
			d.mu.Unlock()
			return since(start), func() {
				d.mu.Lock()
				delete(d.fetching, ws)
				d.mu.Unlock()
				close(mine)
			}, nil
		}
		d.mu.Unlock()
		if start.IsZero() {
			start = time.Now()
			ended = waiting("the module download under way (core's warm-up started it; not counted against the timeout)")
		}
		select {
		case <-busy:
		case <-ctx.Done():
			return since(start), nil, ctx.Err()
		}
	}
}

// Done records that the workspace's modules are downloaded for key.
func (d *Downloads) Done(ws, key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.downloaded == nil {
		d.downloaded = map[string]string{}
	}
	d.downloaded[ws] = key
}

// since is the time since start, or zero for a zero start.
func since(start time.Time) time.Duration {
	if start.IsZero() {
		return 0
	}
	return time.Since(start)
}
