package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// signals is the one owner of the process's SIGINT and SIGTERM. Each
// cancels the root context, as it does for every command, except a
// SIGINT while a session run at this terminal holds it (claim): that
// Ctrl-C is the run's to handle (ctrlC).
type signals struct {
	cancel context.CancelFunc
	ch     chan os.Signal
	done   chan struct{}
	mu     sync.Mutex
	// onInt is the claim's handler; it reports false to leave the Ctrl-C
	// to the default, the root's cancel.
	onInt func() bool
}

// watchSignals starts owning SIGINT and SIGTERM; cancel is the root
// context's. stop gives them back.
func watchSignals(cancel context.CancelFunc) *signals {
	s := &signals{cancel: cancel, ch: make(chan os.Signal, 4), done: make(chan struct{})}
	signal.Notify(s.ch, os.Interrupt, syscall.SIGTERM)
	go s.loop()
	return s
}

func (s *signals) loop() {
	for {
		select {
		case <-s.done:
			return
		case sig := <-s.ch:
			if sig == os.Interrupt && s.handled() {
				continue
			}
			s.cancel()
		}
	}
}

// handled passes a SIGINT to the claim's handler, if one holds it.
func (s *signals) handled() bool {
	s.mu.Lock()
	h := s.onInt
	s.mu.Unlock()
	return h != nil && h()
}

// claim hands SIGINT to h until release is called. A nil signals (a
// test's run, with no process to own) claims nothing.
func (s *signals) claim(h func() bool) (release func()) {
	if s == nil {
		return func() {}
	}
	s.mu.Lock()
	s.onInt = h
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.onInt = nil
		s.mu.Unlock()
	}
}

// stop stops owning the signals.
func (s *signals) stop() {
	signal.Stop(s.ch)
	close(s.done)
}
