package kit

import (
	"testing"
	"time"
)

func TestLevelWordsMarksAndTTLs(t *testing.T) {
	for _, c := range []struct {
		l          Level
		word, mark string
		ttl        time.Duration
	}{
		{Info, "info", "", 3 * time.Second},
		{Success, "ok", "✓", 6 * time.Second},
		{Warn, "warn", "⚠", 6 * time.Second},
		{Error, "error", "✗", 6 * time.Second},
	} {
		if got := c.l.String(); got != c.word {
			t.Errorf("level %d: String %q, want %q", c.l, got, c.word)
		}
		if got := c.l.Mark(); got != c.mark {
			t.Errorf("level %s: Mark %q, want %q", c.word, got, c.mark)
		}
		if got := c.l.TTL(); got != c.ttl {
			t.Errorf("level %s: TTL %v, want %v", c.word, got, c.ttl)
		}
		if got := (Status{Level: c.l}).Life(); got != c.ttl {
			t.Errorf("level %s: a status without a TTL lives %v, want the level's %v", c.word, got, c.ttl)
		}
		if got := (Status{Level: c.l, TTL: time.Hour}).Life(); got != time.Hour {
			t.Errorf("level %s: a status with a TTL of 1h lives %v", c.word, got)
		}
	}
}

// A shown status is live up to and including its Until, never without
// text, and At gives it only while it is live.
func TestShownIsLiveUntilItsTime(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	s := Shown{Status: Status{Text: "written"}, Until: t0.Add(time.Second)}
	if !s.Live(t0) || !s.Live(t0.Add(time.Second)) || s.Live(t0.Add(time.Second+1)) {
		t.Fatal("a status shows up to its Until and not after")
	}
	if (Shown{Until: t0.Add(time.Hour)}).Live(t0) {
		t.Fatal("a status without text is not live")
	}
	if s.At(t0) != s || s.At(t0.Add(2*time.Second)) != (Shown{}) {
		t.Fatal("At gives the status only while it is live")
	}
}
