package egress

import "sync"

// Log records the allowed hosts the step's proxy could not reach.
type Log struct {
	mu     sync.Mutex
	failed []DialFailure
}

// DialFailure is one connection the proxy could not make.
type DialFailure struct{ Target, Err string }

// Record keeps a failed connection to target; l may be nil.
func (l *Log) Record(target string, err error) {
	if l == nil || err == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.failed) < 16 {
		l.failed = append(l.failed, DialFailure{Target: target, Err: err.Error()})
	}
}

// First is the first failed connection; false when there is none.
func (l *Log) First() (DialFailure, bool) {
	if l == nil {
		return DialFailure{}, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.failed) == 0 {
		return DialFailure{}, false
	}
	return l.failed[0], true
}
