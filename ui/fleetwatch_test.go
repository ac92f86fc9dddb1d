package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/fleet"
)

// A loop the fleet watcher leaves to the stat poll says so in the
// preview, and the help screen says how the table watches the loops.
func TestFleetShowsPolledLoopsAndTheWatch(t *testing.T) {
	rows := fleetRows()
	m := fleetModel(t, 120, 30, rows)
	polled := rows[1] // docs: nothing needs attention there
	rep := fleet.WatchReport{Mode: "claude", Backend: "kqueue", Dirs: 7, ClaudeDirs: 7, Descriptors: 14, Budget: 15,
		Loops: 8, Polled: []string{polled.Path}, PollMS: 2000, RescanMS: 10000}
	m.fleet.watch = func() fleet.WatchReport { return rep }
	why := "⟳ polled every 2s: its .claude directory is beyond the watch budget of 15 descriptors"
	if out := screen(m); strings.Contains(out, "polled every") {
		t.Fatalf("a watched loop's preview says it is polled:\n%s", out)
	}
	for i := 0; i < len(rows) && !strings.Contains(screen(m), "docs · aot-loop"); i++ {
		press(m, "j")
	}
	if out := screen(m); !strings.Contains(out, "docs · aot-loop") || !strings.Contains(out, why) {
		t.Fatalf("the polled loop's preview should say %q:\n%s", why, out)
	}
	press(m, "?")
	want := "watch: watching 7 .claude directories with 14 of 15 descriptors (kqueue); trees walked again every 10s; 1 loop polled every 2s"
	if out := screen(m); !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
		t.Fatalf("the help should say %q:\n%s", want, out)
	}
}

// With the real watcher the help says what it watches.
func TestFleetFlowHelpSaysWhatIsWatched(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a", "b"} {
		dir := filepath.Join(root, p, ".claude")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join("..", "testdata", "seed-complete.md"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "aot-loop-state.md"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := startFleetFlow(t, root, 160, 40)
	f.waitFor("2 loops")
	f.keys("?")
	_, want, err := fleet.Plan([]string{root}, fleet.Options{Depth: 3})
	if err != nil {
		t.Fatal(err)
	}
	f.waitFor("watch: " + want.String())
}
