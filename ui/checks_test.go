package ui

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// checkedVersions returns a generated loop's writes as the loop makes
// them (gen.LoopWrites: an atom's status and the iteration, 100, 101, …),
// every odd one with a finding and a stop: an atom with a status the loop
// does not know (an error) and stop_requested set (the outlook "stops").
func checkedVersions(t *testing.T, atoms, n int) [][]byte {
	t.Helper()
	base := gen.Generate(gen.Options{Atoms: atoms, Seed: 26, Resolved: 0.4, ORGroups: 2, Decompositions: 2})
	// Room for the iterations the writes number (100, …): no limit stops it.
	base = regexp.MustCompile(`max_iterations: \d+`).ReplaceAll(base, []byte("max_iterations: 1000"))
	next := gen.LoopWrites(base)
	var out [][]byte
	for k := range n {
		data := string(next())
		if k%2 == 1 {
			data = strings.Replace(data, "    status: pending\n", "    status: blocked\n", 1)
			data = strings.Replace(data, "  stop_requested: false\n", "  stop_requested: true\n", 1)
		}
		out = append(out, []byte(data))
	}
	return out
}

func parsedEvent(t *testing.T, data []byte) statefile.Event {
	t.Helper()
	doc, err := statefile.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return statefile.Event{Kind: statefile.EventLoaded, Doc: doc, Facts: model.Derive(doc.State), Data: data, At: fixedNow}
}

// A state that arrives with the checks of another (which eventMsg never
// does) is shown with its own findings: the header's badge, the outlook
// and the flags are never another version's.
func TestStaleChecksAreNotShown(t *testing.T) {
	vs := checkedVersions(t, 30, 2)
	clean, bad := parsedEvent(t, vs[0]), parsedEvent(t, vs[1])
	m := New(Options{Target: statefile.Target{Path: "loop.md", Kind: statefile.KindAoT}, Now: func() time.Time { return fixedNow }, SyncLayout: true, NoColor: true})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	l := m.loops[0]
	m.Update(l.envelope(stateMsg{ev: clean, checks: checksOf(nil, clean.Doc.State, clean.Facts)}))
	if len(l.report.Errors) != 0 || strings.HasPrefix(l.outlook.Text, "stops") {
		t.Fatalf("clean version: errors %v, outlook %q", l.report.Errors, l.outlook.Text)
	}
	// The bad version, with the clean one's checks.
	m.Update(l.envelope(stateMsg{ev: bad, checks: checksOf(nil, clean.Doc.State, clean.Facts)}))
	if len(l.report.Errors) != 1 || !strings.Contains(l.report.Errors[0], `status "blocked"`) || l.outlook.Text != "stops: manual stop requested" {
		t.Fatalf("bad version shown with errors %v, outlook %q", l.report.Errors, l.outlook.Text)
	}
	if screen := m.render(); !strings.Contains(screen, "1 error") || !strings.Contains(screen, "stops: manual stop requested") {
		t.Fatalf("the bad version's findings are not on screen:\n%s", screen)
	}
	// And back, with the bad one's.
	m.Update(l.envelope(stateMsg{ev: clean, checks: checksOf(nil, bad.Doc.State, bad.Facts)}))
	if len(l.report.Errors) != 0 || strings.HasPrefix(l.outlook.Text, "stops") {
		t.Fatalf("clean version shown with errors %v, outlook %q", l.report.Errors, l.outlook.Text)
	}
	if screen := m.render(); strings.Contains(screen, "error") || strings.Contains(screen, "stops:") {
		t.Fatalf("the bad version's findings are still on screen:\n%s", screen)
	}
}

// In a running program with the real watcher, a loop writes versions that
// alternate between clean and one with an error and a stop requested,
// some faster than the watcher's debounce: every frame drawn (every View,
// not only those the renderer flushes) that shows one of the versions
// shows that version's findings — the header's error badge and the
// outlook — never the one before's.
func TestFlowFindingsMatchTheirVersion(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "aot-loop-state.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	const n = 40
	vs := checkedVersions(t, 200, n+1)
	write := func(data []byte) {
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil { // as the loop's hook writes
			t.Fatal(err)
		}
	}
	write(vs[0])
	m := New(Options{Target: statefile.Target{Path: path, Kind: statefile.KindAoT}, NoColor: true,
		Watch: statefile.WatchOptions{Debounce: 2 * time.Millisecond, Poll: 100 * time.Millisecond}})
	frames := make(chan string, 1<<14)
	tm := teatest.NewTestModel(t, drawProbe{probe{m}, frames}, teatest.WithInitialTermSize(200, 40))
	t.Cleanup(func() {
		_ = tm.Quit()
		m.Close()
	})
	iteration := regexp.MustCompile(`iteration (\d+)/`)
	checked := map[int]bool{}
	check := func(f string) {
		k := iteration.FindStringSubmatch(f)
		if k == nil {
			return
		}
		it, _ := strconv.Atoi(k[1])
		v := it - 100 // gen.LoopWrites numbers the versions from 100
		if v < 0 || v > n {
			return
		}
		bad := v%2 == 1
		if strings.Contains(f, "1 error") != bad || strings.Contains(f, "stops: manual stop requested") != bad {
			t.Fatalf("iteration %d (findings: %v) drawn with the findings of another version:\n%s", it, bad, f)
		}
		checked[v] = true
	}
	drain := func() {
		for {
			select {
			case f := <-frames:
				check(f)
			default:
				return
			}
		}
	}
	for k := 1; k <= n; k++ {
		write(vs[k])
		time.Sleep(time.Duration(k%4) * 4 * time.Millisecond) // 0–12 ms: some writes land within one read
		drain()
	}
	deadline := time.After(20 * time.Second)
	for !checked[n] {
		select {
		case f := <-frames:
			check(f)
		case <-deadline:
			t.Fatalf("the last version was never drawn; versions drawn: %v", checked)
		}
	}
	bad := 0
	for v := range checked {
		bad += v % 2
	}
	if len(checked) < 4 || bad == 0 {
		t.Fatalf("only versions %v were drawn", checked)
	}
	t.Logf("%d of %d versions drawn, %d with findings", len(checked), n, bad)
}
