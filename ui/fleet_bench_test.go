package ui

import (
	"fmt"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/ui/fleettable"
)

// benchFleetRows is a fleet of n loops, like fleetRows' calm one.
func benchFleetRows(n int) []fleet.Row {
	base := fleetRows()[0]
	rows := make([]fleet.Row, n)
	for i := range rows {
		r := base
		r.Path = fmt.Sprintf("/work/projects/p%02d/.claude/aot-loop-state.md", i)
		r.Name = fmt.Sprintf("team/p%02d", i)
		r.Iteration = i % 20
		r.Changed = fixedNow.Add(-time.Duration(i) * time.Minute)
		rows[i] = r
	}
	return rows
}

// BenchmarkFleetRowChange50: one loop of 50 changes — the table takes the
// new row, sorts, and the screen is drawn again (colours on).
func BenchmarkFleetRowChange50(b *testing.B) {
	rows := benchFleetRows(50)
	m := fleetModel(b, 200, 60, rows)
	m.styles = NewStyles(true, false)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := rows[i%50]
		r.Iteration = i % 30
		r.Changed = fixedNow.Add(time.Duration(i) * time.Millisecond)
		m.Update(fleettable.Rows{Rows: []fleet.Row{r}})
		_ = m.View()
	}
}

// BenchmarkFleetIdleMinute50: the minute after every loop of 50 wrote,
// each at its own sub-second moment, as the program lives it: one op
// follows the clock's wake-ups that View arms (each one the update of a
// clock message and a frame, colours on) through one simulated minute.
// wakes/min is how often the program is woken; cpu-% is the time of it
// over the minute, in percent of a core — before Bubble Tea diffs and
// writes each frame (once per wake).
func BenchmarkFleetIdleMinute50(b *testing.B) {
	rows := benchFleetRows(50)
	start := fixedNow.Add(437 * time.Millisecond)
	now := start
	m := fleetModel(b, 200, 60, nil)
	m.styles = NewStyles(true, false)
	m.opts.Now = func() time.Time { return now }
	wakes := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		start = start.Add(2 * time.Minute)
		now = start
		for k := range rows {
			rows[k].Changed = start.Add(-time.Duration(k*1019) * time.Millisecond)
		}
		m.Update(fleettable.Rows{Rows: rows})
		_ = m.View()
		b.StartTimer()
		for end := start.Add(time.Minute); ; {
			next := m.frameNext
			if next.IsZero() || next.After(end) {
				break
			}
			now = next
			wakes++
			m.Update(clockMsg(now))
			_ = m.View()
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(wakes)/float64(b.N), "wakes/min")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/60e9*100, "cpu-%")
}
