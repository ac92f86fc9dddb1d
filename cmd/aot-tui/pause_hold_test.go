package main

import "testing"

// The hold sets the flag again from the loop's newest version: versions
// that come while it writes replace each other, and the newest is never
// the one dropped (it used to queue eight and drop the rest, the newest
// among them).
func TestHoldKeepsTheNewestVersion(t *testing.T) {
	c := make(chan int, 1)
	for i := 1; i <= 20; i++ {
		keepNewest(c, i)
	}
	if got := <-c; got != 20 {
		t.Fatalf("took version %d, want the newest, 20", got)
	}
	select {
	case v := <-c:
		t.Fatalf("another version waited: %d", v)
	default:
	}
	keepNewest(c, 21)
	if got := <-c; got != 21 {
		t.Fatalf("took %d after the slot emptied, want 21", got)
	}
}
