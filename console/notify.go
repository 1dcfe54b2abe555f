package console

import (
	"strings"
	"sync"
)

// notifier wakes the long-polls waiting for a login's commands when this
// process queues one.
type notifier struct {
	mu      sync.Mutex
	waiting map[string]chan struct{}
}

func newNotifier() *notifier { return &notifier{waiting: make(map[string]chan struct{})} }

// wait returns a channel closed at the next notify for login.
func (n *notifier) wait(login string) <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	key := strings.ToLower(login)
	ch, ok := n.waiting[key]
	if !ok {
		ch = make(chan struct{})
		n.waiting[key] = ch
	}
	return ch
}

// notify wakes everyone waiting for login.
func (n *notifier) notify(login string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	key := strings.ToLower(login)
	if ch, ok := n.waiting[key]; ok {
		close(ch)
		delete(n.waiting, key)
	}
}
