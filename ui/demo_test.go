package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/aot-loop/aot-tui/sim"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/charmbracelet/x/exp/golden"
)

// demoState writes, in a temporary directory, the demo's state file (seed
// 1) as the simulator wrote it when it started A9 in iteration 3: A1, A2
// and A8 resolved, A5 and A9 in progress, A3 split into A8 and A9, the
// OR group switched from the failed A4 to A5. The trail's wall-clock
// timestamps are set to a fixed time.
func demoState(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	path, err := sim.Setup(dir, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	var version []byte
	starts := 0
	_, err = sim.Run(t.Context(), sim.Config{Path: path, Seed: 1, Speed: 1000, Demo: true, OnWrite: func(what string, data []byte) {
		if what == "start A9" {
			if starts++; starts == 1 {
				version = data
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if version == nil {
		t.Fatal("the demo never started A9")
	}
	stamp := regexp.MustCompile(`timestamp: "2\d\d\d-[^"]*"`)
	version = stamp.ReplaceAllFunc(version, func(b []byte) []byte {
		if string(b) == `timestamp: "2026-01-01T09:00:00Z"` { // the scenario's own
			return b
		}
		return []byte(`timestamp: "2026-01-01T11:58:00Z"`)
	})
	out := filepath.Join(t.TempDir(), "demo", statefile.AoTStateRel)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, version, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDemoGolden draws the demo halfway through at the sizes people use,
// from a split pane to a full screen: the graph (the list at 60 columns,
// the drawing from 80), the other layout (v), left-right (t), a collapsed
// decomposition (space on A3), collapsed history (z) and the tables and
// the objective. Boxes use the width they have, up to the one that shows
// every description whole; titles wrap at words over the rows the pane's
// height allows.
func TestDemoGolden(t *testing.T) {
	path := demoState(t)
	views := []struct {
		name string
		keys []string
		// drawing: the view is of the drawing, which a 60-column pane
		// shows after v (it starts with the list there).
		drawing bool
	}{
		{"graph", nil, false},
		{"other-layout", []string{"v"}, false},
		{"left-right", []string{"t"}, true},
		{"collapsed-parts", []string{":", "A", "3", "enter", "space"}, true},
		{"collapsed-history", []string{"z"}, true},
		{"bindings", []string{"2"}, false},
		{"trail", []string{"3"}, false},
		{"corrections", []string{"4"}, false},
		{"objective", []string{"5"}, false},
	}
	for _, v := range views {
		for _, sz := range []struct{ w, h int }{{60, 20}, {80, 24}, {120, 40}, {200, 60}} {
			t.Run(fmt.Sprintf("%s/%dx%d", v.name, sz.w, sz.h), func(t *testing.T) {
				m := modelOn(t, path, sz.w, sz.h, false)
				keys := v.keys
				if v.drawing && !m.cur.graph.isLayered() {
					keys = append([]string{"v"}, keys...)
				}
				press(m, keys...)
				clearStatus(m)
				out := screen(m)
				checkFits(t, out, sz.w, sz.h)
				golden.RequireEqual(t, out)
			})
		}
	}
}
