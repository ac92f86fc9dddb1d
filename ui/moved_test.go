package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/statefile"

	"github.com/aot-loop/aot-tui/ui/redirect"
)

// A form notes "the loop wrote the file" only when the file changed: the
// watcher reporting the bytes on screen again (a second event for one
// write, which arrived after the form opened) is no change. It was, and
// the note pushed the focused field out of a short pane
// (TestDialogInAShortPaneShowsTheFocusedField, now and then).
func TestTheSameBytesAgainDoNotMoveTheForm(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "rich.md"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "aot-loop-state.md")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	m := New(Options{Target: statefile.Target{Path: path, Kind: statefile.KindAoT}, NoColor: true, Now: func() time.Time { return fixedNow }})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	loaded := func(b []byte) statefile.Event {
		ev := loadEvent(t, path)
		doc, err := statefile.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		ev.Doc, ev.Data = doc, b
		return ev
	}
	m.Update(m.loops[0].envelope(stateMsg{ev: loaded(data)}))
	m.Update(tea.KeyPressMsg{Code: 'e', Text: "e"})
	if !formOpen(m, redirect.Objective) {
		t.Fatalf("e opened %T", m.cur.topDialog())
	}
	const moved = "the loop wrote the file"
	m.Update(m.loops[0].envelope(stateMsg{ev: loaded(data)}))
	if strings.Contains(screen(m), moved) {
		t.Fatal("the bytes on screen, reported again, marked the form as moved")
	}
	m.Update(m.loops[0].envelope(stateMsg{ev: loaded([]byte(strings.Replace(string(data), "iteration: 7", "iteration: 8", 1)))}))
	if !strings.Contains(strings.Join(strings.Fields(screen(m)), " "), moved) {
		t.Fatal("a loop write did not mark the form as moved\n" + screen(m))
	}
}
