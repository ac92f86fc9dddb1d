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
