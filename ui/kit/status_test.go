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
