package notify

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkSend is what an alert costs the TUI's goroutine: the event
// stamped, sanitised and handed to a webhook's queue (or dropped with a
// note once the queue is full, as here, the receiver holding every
// request). Send never waits for the sink.
func BenchmarkSend(b *testing.B) {
	hold := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-hold }))
	defer srv.Close()
	n := New(Config{Webhook: &Webhook{URL: srv.URL}, Timeout: time.Minute}, Options{Version: "v1"})
	ev := Event{Kind: Stopped, Loop: "billing", Path: "/w/billing/.claude/aot-loop-state.md", Reason: "the loop stopped: Max stall count reached"}
	b.ReportAllocs()
	for b.Loop() {
		n.Send(ev)
		n.TakeNotes()
	}
	b.StopTimer()
	close(hold)
	n.Close(time.Minute)
}
