package ui

import (
	"fmt"
	"time"

	"github.com/aot-loop/aot-tui/ui/kit"
)

// quitAgain is how long after quit warned of guarded corrections quitting
// again quits at once (the warning shows that long).
const quitAgain = 5 * time.Second

// quitWarning is the footer line quit shows instead of quitting while a
// correction of this TUI is in its risky time (correction.Session.Risky:
// written so recently that a loop write over it after quitting would go
// unseen); ok is false when quit should quit: nothing is risky, or quit
// was asked again within quitAgain of the warning.
func (m *Model) quitWarning() (kit.Status, bool) {
	if !m.quitUntil.IsZero() && !m.now.After(m.quitUntil) {
		return kit.Status{}, false
	}
	now := time.Now() // the sessions' clock: when corrections were written
	n, last := 0, time.Time{}
	for _, l := range m.loops {
		r := l.session.Risky(now)
		n += r.N
		if r.Written.After(last) {
			last = r.Written
		}
	}
	if n == 0 {
		return kit.Status{}, false
	}
	m.quitUntil = m.now.Add(quitAgain)
	ago := fmt.Sprintf("%.1f s", max(now.Sub(last), 0).Seconds())
	what := "1 correction, written " + ago + " ago, is still guarded against loop writes"
	if n > 1 {
		what = fmt.Sprintf("%d corrections, the last written %s ago, are still guarded against loop writes", n, ago)
	}
	return kit.Status{Text: what + ": " + m.keys.Quit.Help().Key + " again quits, or wait", Level: kit.Warn, TTL: quitAgain}, true
}
