package ui

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// deleteAtom4 removes A4 from rich.md the way a loop script or another
// aot-tui would: its block goes, and so does its place among A2's parts.
func (f *flow) deleteAtom4() {
	f.t.Helper()
	data, err := os.ReadFile(f.path)
	if err != nil {
		f.t.Fatal(err)
	}
	block := "  - id: A4\n    description: \"Idempotency keys\"\n    status: in_progress\n    depends_on: [A1]\n"
	s := string(data)
	if !strings.Contains(s, block) {
		f.t.Fatal("rich.md changed: A4's block is not where the test expects it")
	}
	s = strings.Replace(s, block, "", 1)
	s = strings.Replace(s, "children: [A3, A4]", "children: [A3]", 1)
	if err := os.WriteFile(f.path, []byte(s), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// When the selected atom is deleted through the file, its neighbour in
// the drawing's reading order is selected, and the atom keys and the move
// keys go on working.
func TestDeletedSelectionMovesToItsNeighbour(t *testing.T) {
	f := startFlow(t, "rich.md", 120, 40, Options{})
	f.waitFor("A4  ◐ in_progress") // the details pane: the in-progress A4 is selected
	f.deleteAtom4()
	// A4 sat between A3 and A5 in its layer (A2's frame holds A3 and A4,
	// the OR group A5 and A6 follow): A5 comes after it.
	f.waitFor("A5  ○ pending", "Audit log storage in Postgres")
	f.keys("l")
	f.waitFor("A6  ○ pending")
	f.keys("d")
	s := f.waitFor("Delete an atom")
	if strings.Contains(s, "select an atom first") {
		t.Fatalf("the delete key has no atom to act on:\n%s", s)
	}
}

// The list (a narrow pane) does the same in its own order: the atom after
// the deleted one in the list, and j from there.
func TestDeletedSelectionMovesToItsNeighbourInTheList(t *testing.T) {
	f := startFlow(t, "rich.md", 60, 20, Options{})
	f.waitSelected("A4")
	f.deleteAtom4()
	f.waitFor("○5 ◐0 ●2") // A4 is gone
	f.waitSelected("A5")
	f.keys("j")
	f.waitSelected("A6")
}

// waitSelected polls the screen until the list's cursor (›) is on the row
// of id (a liveness bound, not a timing assertion).
func (f *flow) waitSelected(id string) {
	f.t.Helper()
	var s string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		s = f.screen()
		for _, line := range strings.Split(s, "\n") {
			if strings.HasPrefix(line, "›") && strings.Contains(line, " "+id+" ") {
				return
			}
		}
	}
	f.t.Fatalf("%s never selected; last screen:\n%s", id, s)
}

// The move keys work with nothing selected: here the selection was a
// summary of resolved atoms (z) that a later version no longer has.
func TestMoveKeysWorkWithNothingSelected(t *testing.T) {
	m := loadedModel(t, "rich.md", 120, 40)
	press(m, "z", "g")
	g := &m.cur.graph
	if !strings.HasPrefix(g.sel, "+") {
		t.Fatalf("g should select the summary of resolved atoms, not %q", g.sel)
	}
	data, err := os.ReadFile("../testdata/rich.md")
	if err != nil {
		t.Fatal(err)
	}
	reopened := strings.Replace(string(data), "description: \"Define the billing schema\"\n    status: resolved",
		"description: \"Define the billing schema\"\n    status: in_progress", 1)
	m.Update(m.cur.envelope(stateMsg{ev: eventOf(t, []byte(reopened))}))
	if g.lay.gv.Selected() != "" {
		t.Fatalf("the summary is gone, yet the drawing selects %q", g.lay.gv.Selected())
	}
	press(m, "j")
	if _, ok := m.cur.facts.Index[g.sel]; !ok || g.lay.gv.Selected() != g.sel {
		t.Fatalf("j with nothing selected should select an atom in sight: %q (drawing %q)", g.sel, g.lay.gv.Selected())
	}
	if s := screen(m); strings.Contains(s, "no atom selected") {
		t.Fatalf("the details still show no atom:\n%s", s)
	}
}

// eventOf is the watcher's event for a version of the file with data.
func eventOf(t *testing.T, data []byte) statefile.Event {
	t.Helper()
	doc, err := statefile.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return statefile.Event{Kind: statefile.EventLoaded, Target: statefile.Target{Path: "rich.md", Kind: statefile.KindAoT},
		Doc: doc, Facts: model.Derive(doc.State), Data: data, At: fixedNow}
}
