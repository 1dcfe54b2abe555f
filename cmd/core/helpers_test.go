package main

import (
	"bytes"
	"sync"
)

// writerBuffer is a bytes.Buffer safe for the concurrent writes of a
// command's stdout and stderr.
type writerBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *writerBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *writerBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
