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

// BenchmarkFleetIdleSecond50: one wake-up of the shared clock in the
// minute after every loop of 50 wrote (each at its own sub-second
// moment): every row's "changed" column reads one second more, the rows
// are drawn again and the frame (colours on) is made — what the program
// does once a second then, before Bubble Tea diffs the frame.
func BenchmarkFleetIdleSecond50(b *testing.B) {
	rows := benchFleetRows(50)
	now := fixedNow.Add(437 * time.Millisecond)
	for i := range rows {
		rows[i].Changed = now.Add(-time.Duration(i*1019) * time.Millisecond)
	}
	m := fleetModel(b, 200, 60, nil)
	m.styles = NewStyles(true, false)
	m.opts.Now = func() time.Time { return now }
	m.Update(fleettable.Rows{Rows: rows})
	_ = m.View()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%55 == 54 { // every row a minute old: back into the first minute
			now = now.Add(-55 * time.Second)
		}
		now = now.Add(time.Second)
		m.Update(clockMsg(now))
		_ = m.View()
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e7, "cpu-%-at-1/s")
}
