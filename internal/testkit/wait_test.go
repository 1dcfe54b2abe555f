package testkit

import (
	"testing"
)

func TestReceive(t *testing.T) {
	t.Parallel()
	ch := make(chan int, 1)
	ch <- 7
	if got := Receive(t, ch, "the seven"); got != 7 {
		t.Fatalf("Receive returned %d, want 7", got)
	}
}
