package ui

import (
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// The gone note: an atom in progress in the version before and missing
// from the new one is named in the outlook, until the iteration moves on.
func TestOutlookNamesAGoneWorker(t *testing.T) {
	m := loadedModel(t, "rich.md", 120, 30)
	path := m.cur.target.Path
	ev := loadEvent(t, path)
	text := strings.Replace(string(ev.Doc.Data), "  - id: A4\n    description: \"Idempotency keys\"\n    status: in_progress\n    depends_on: [A1]\n", "", 1)
	send := func(text string) {
		doc, err := statefile.Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		m.Update(m.loops[0].envelope(stateMsg{ev: statefile.Event{Kind: statefile.EventLoaded, Target: ev.Target, Doc: doc, Data: doc.Data,
			Facts: model.Derive(doc.State), At: fixedNow}}))
	}
	send(text)
	const note = "A4 was in progress and is gone: the worker's update_atom.py A4 … will fail 'Atom A4 not found'"
	if s := screen(m); !strings.Contains(s, note) {
		t.Fatalf("the outlook does not name the gone worker:\n%s", s)
	}
	// Another write in the same iteration: still said.
	send(strings.Replace(text, "stall_count: 2", "stall_count: 1", 1))
	if s := screen(m); !strings.Contains(s, note) {
		t.Fatalf("the note went with the next write of the iteration:\n%s", s)
	}
	// The next iteration: the coordinator that ran the worker has ended.
	send(strings.Replace(text, "iteration: 7", "iteration: 8", 1))
	if s := screen(m); strings.Contains(s, "is gone") {
		t.Fatalf("the note outlived its iteration:\n%s", s)
	}
}
