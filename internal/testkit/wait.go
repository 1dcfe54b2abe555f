package testkit

import (
	"testing"
	"time"
)

// Patience is how long a test waits for what another goroutine or process
// does before it fails, saying what it waited for. It is generous: the
// suite runs on shared, busy machines (make test-stress), where a run that
// takes a second when idle may take twenty; a wait that ends early only
// costs time when something is already broken.
const Patience = 2 * time.Minute

// Receive waits for a value on ch and returns it; after Patience it fails
// the test with what it was waiting for.
func Receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	timer := time.NewTimer(Patience)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("waited %s for %s", Patience, what)
		var zero T
		return zero
	}
}
