package ui

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/history"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/statefile"
)

// TestTimelineAgreesWithReparse feeds the TUI versions read the watcher's
// way — each by statefile.Reparse on the Document before, derived by one
// Deriver — and checks that the timeline, which parses the versions it
// keeps afresh, agrees with them: every version's state and facts are the
// ones shown live, its marks are those of the changes between full
// parses, and the corrections the message log noted are those full
// parses give.
func TestTimelineAgreesWithReparse(t *testing.T) {
	data := gen.Generate(gen.Options{Atoms: 120, Seed: 5, Resolved: 0.3, ORGroups: 5, Decompositions: 4})
	versions := [][]byte{data}
	cur := string(data)
	for i := 1; i < 40; i++ {
		switch i % 5 {
		case 0: // an atom resolved
			cur = strings.Replace(cur, "    status: pending\n", "    status: resolved\n", 1)
		case 1: // the iteration and the stall count
			cur = strings.Replace(cur, "\n  iteration: ", fmt.Sprintf("\n  iteration: %d\n  _x: ", i), 1)
		case 2: // a line above everything: every entry moves
			cur = strings.Replace(cur, "---\n", "---\n# moved\n", 1)
		case 3: // an atom added at the front
			cur = strings.Replace(cur, "\natoms:\n", fmt.Sprintf("\natoms:\n  - id: N%d\n    description: \"new %d\"\n    status: pending\n    depends_on: []\n", i, i), 1)
		case 4: // a correction, as /redirect writes it
			cur = strings.Replace(cur, "\ncorrections: []\n", "\ncorrections:\n", 1)
			cur = strings.Replace(cur, "\ncorrections:\n", fmt.Sprintf("\ncorrections:\n  - timestamp: \"2026-11-24T10:%02d:00Z\"\n    type: constraint_add\n    description: \"constraint %d\"\n", i, i), 1)
		}
		versions = append(versions, []byte(cur))
	}

	m := New(Options{Target: statefile.Target{Path: "loop.md", Kind: statefile.KindAoT}, Now: func() time.Time { return fixedNow }, SyncLayout: true})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	var d model.Deriver
	var doc *statefile.Document
	var live []statefile.Event
	for k, v := range versions {
		var err error
		if doc, err = statefile.Reparse(doc, v); err != nil {
			t.Fatalf("version %d: %v", k, err)
		}
		ev := statefile.Event{Kind: statefile.EventLoaded, Doc: doc, Facts: d.Derive(doc.State), Data: v, At: fixedNow.Add(time.Duration(k) * time.Second)}
		live = append(live, ev)
		m.Update(m.loops[0].envelope(stateMsg{ev: ev}))
	}

	h := m.hist(m.loops[0])
	if h.tl.Len() != len(versions) {
		t.Fatalf("the timeline holds %d versions, want %d", h.tl.Len(), len(versions))
	}
	var prev *model.State
	var corrections []string
	for i := range versions {
		s, err := m.parsedVersion(h, i)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(s.doc.Data, versions[i]) {
			t.Fatalf("version %d: the timeline's bytes differ from the file's", i)
		}
		if !reflect.DeepEqual(s.doc.State, live[i].Doc.State) {
			t.Fatalf("version %d: the timeline's state differs from the one Reparse gave", i)
		}
		// The dependents are made when first asked for: asked of both,
		// the facts hold them alike.
		s.facts.Dependents()
		live[i].Facts.Dependents()
		if !reflect.DeepEqual(s.facts, live[i].Facts) {
			t.Fatalf("version %d: the timeline's facts differ from the Deriver's", i)
		}
		changes := history.Compare(prev, s.doc.State)
		if got, want := h.tl.Marks(i), history.MarksOf(changes); got != want {
			t.Fatalf("version %d: marks %v, full parses give %v", i, got, want)
		}
		if i > 0 {
			for _, c := range changes {
				if c.Kind == history.ChangeCorrection {
					corrections = append(corrections, c.Text)
				}
			}
		}
		prev = s.doc.State
	}
	if len(corrections) != 8 {
		t.Fatalf("%d corrections between full parses, want 8", len(corrections))
	}
	var texts []string
	for _, e := range m.msgs.entries {
		texts = append(texts, e.text)
	}
	log := strings.Join(texts, "\n")
	for _, c := range corrections {
		if !strings.Contains(log, c) {
			t.Fatalf("the message log lacks %q:\n%s", c, log)
		}
	}
}
