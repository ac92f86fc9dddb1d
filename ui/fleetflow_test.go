package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/sim"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// startFleetFlow runs the production model on the fleet table of root,
// with the real fleet watcher, in a teatest program.
func startFleetFlow(t *testing.T, root string, w, h int) *flow {
	t.Helper()
	m := New(Options{
		Fleet:   &FleetOptions{Dirs: []string{root}, Options: fleet.Options{Depth: 3, Watch: statefile.WatchOptions{Poll: 200 * time.Millisecond}}},
		NoColor: true,
		Watch:   statefile.WatchOptions{Debounce: 5 * time.Millisecond, Poll: 100 * time.Millisecond},
	})
	tm := teatest.NewTestModel(t, probe{m}, teatest.WithInitialTermSize(w, h))
	f := &flow{t: t, tm: tm}
	t.Cleanup(func() {
		_ = tm.Quit()
		m.Close()
	})
	return f
}

// rowLine finds the table line of project name on a screen ("" if none).
func rowLine(screen, name string) string {
	for _, l := range strings.Split(screen, "\n") {
		// The attention mark, a space, the project padded to its column.
		if r := []rune(l); len(r) > 2 && strings.HasPrefix(string(r[1:]), " "+name+" ") {
			return l
		}
	}
	return ""
}

// cellsOf is what the table's row says of a loop's file, as text: its
// status cell and iteration.
func cellsOf(r fleet.Row) []string {
	status := "▶ running"
	switch {
	case r.File != fleet.FileOK:
		status = "✗ invalid"
	case r.RedirectRequested:
		status = "‖ paused"
	case r.Kind == "phase-loop" && r.Status == "running":
		status = "▶ " + r.Phase
	case r.Kind == "phase-loop" && r.Status == "completed":
		status = "✓ shipped"
	case r.Status == "completed":
		status = "✓ completed"
	case r.Status == "stopped":
		status = "■ stopped"
	case r.Status == "pending":
		status = "○ pending"
	}
	return []string{status, fmt.Sprintf("%d/%d ", r.Iteration, r.MaxIterations), fmt.Sprintf(" %d/%d ", r.StallCount, r.MaxStallCount)}
}

// Fifty simulated loops (AoT and phase) under one directory: once the
// simulators stop, every row of the table says what its file says within
// a second; a removed project disappears, a new one appears; / filters;
// enter opens a loop and esc comes back.
func TestFleetFlowFiftySimulatedLoops(t *testing.T) {
	root := t.TempDir()
	type simLoop struct {
		name string
		loop fleet.Loop
	}
	var loops []simLoop
	for i := 0; i < 50; i++ {
		name := fmt.Sprintf("p%02d", i)
		if i%2 == 1 {
			name = "team/" + name
		}
		dir := filepath.Join(root, filepath.FromSlash(name))
		var path string
		var err error
		kind := statefile.KindAoT
		if i%5 == 4 {
			path, err = sim.SetupPhase(dir, "feature "+name, uint64(i))
			kind = statefile.KindPhaseLoop
		} else {
			path, err = sim.Setup(dir, 5+i%6, uint64(i))
		}
		if err != nil {
			t.Fatal(err)
		}
		loops = append(loops, simLoop{name, fleet.Loop{Target: statefile.Target{Path: path, Kind: kind, Exists: true}, Project: dir, Name: name}})
	}
	f := startFleetFlow(t, root, 160, 66)
	f.waitFor("50 loops", "p00", "team/p49")

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	errs := make(chan error, len(loops))
	for i, l := range loops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if l.loop.Target.Kind == statefile.KindPhaseLoop {
				_, err = sim.RunPhase(ctx, sim.PhaseConfig{Path: l.loop.Target.Path, Seed: uint64(i), Speed: 10})
			} else {
				_, err = sim.Run(ctx, sim.Config{Path: l.loop.Target.Path, Seed: uint64(i), Speed: 10})
			}
			if err != nil && !errors.Is(err, context.Canceled) {
				errs <- err
			}
		}()
	}
	time.Sleep(800 * time.Millisecond)
	cancel()
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}

	// Within a second of the last write, every row matches its file.
	start := time.Now()
	for {
		screen := f.screen()
		bad := ""
		for _, l := range loops {
			line := rowLine(screen, l.name)
			for _, want := range cellsOf(fleet.Read(l.loop, statefile.WatchOptions{})) {
				if !strings.Contains(line, want) {
					bad = fmt.Sprintf("%s: row %q lacks %q", l.name, line, want)
				}
			}
		}
		if bad == "" {
			break
		}
		if time.Since(start) > time.Second {
			t.Fatalf("a second after the simulators stopped: %s\n%s", bad, screen)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// A removed project disappears; a new one appears.
	if err := os.RemoveAll(loops[7].loop.Project); err != nil {
		t.Fatal(err)
	}
	f.waitFor("49 loops")
	if rowLine(f.screen(), "team/p07") != "" {
		t.Fatal("the removed project is still in the table")
	}
	if _, err := sim.Setup(filepath.Join(root, "newcomer"), 4, 99); err != nil {
		t.Fatal(err)
	}
	f.waitFor("50 loops", "newcomer")

	// / filters the table.
	f.keys("/", "t", "e", "a", "m", "enter")
	screen := f.waitFor("filter: team (24 of 50)")
	if rowLine(screen, "p00") != "" || rowLine(screen, "team/p01") == "" {
		t.Fatalf("the filter should leave only team's loops:\n%s", screen)
	}
	f.keys("esc")
	f.waitFor("p00")

	// enter opens the selected loop; esc comes back to the table.
	f.keys("g", "enter")
	f.waitFor("◂ fleet esc", "1 Graph")
	f.keys("esc")
	f.waitFor("aot-tui fleet │ 50 loops")
}
