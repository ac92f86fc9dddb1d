package model_test

import (
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/statefile"
)

// intentState is a small loop: A1 resolved; A2 (in progress) and A3
// depend on it; A3 and A4 are the choices of OR group g; A5 is pending.
// Each edit sets a field of an atom ("A2 status: resolved"), selects a
// choice of g ("select A4"), deletes an atom ("delete A5") or appends
// atoms ("append " + their lines).
func intentState(t *testing.T, edits ...string) *model.State {
	t.Helper()
	text := `---
objective:
  goal: "Ship it"
control:
  status: running
  iteration: 3
atoms:
  - id: A1
    description: "base"
    status: resolved
    depends_on: []
  - id: A2
    description: "work"
    status: in_progress
    depends_on: [A1]
  - id: A3
    description: "choice one"
    status: pending
    depends_on: [A1]
    or_group: g
  - id: A4
    description: "choice two"
    status: pending
    depends_on: [A1]
    or_group: g
  - id: A5
    description: "later"
    status: pending
    depends_on: []
or_groups:
  g:
    choices: [A3, A4]
    selected: A3
---
`
	for _, e := range edits {
		id, rest, ok := strings.Cut(e, " ")
		if !ok {
			t.Fatalf("bad edit %q", e)
		}
		if id == "append" {
			text = strings.Replace(text, "or_groups:", rest+"\nor_groups:", 1)
			continue
		}
		if id == "select" {
			text = strings.Replace(text, "    selected: A3", "    selected: "+rest, 1)
			continue
		}
		if id == "delete" {
			start := strings.Index(text, "  - id: "+rest+"\n")
			end := start + 1 + strings.Index(text[start+1:], "  - id: ")
			if end == start {
				end = strings.Index(text, "or_groups:")
			}
			text = text[:start] + text[end:]
			continue
		}
		key, _, _ := strings.Cut(rest, ":")
		block := strings.Index(text, "  - id: "+id+"\n")
		at := block + strings.Index(text[block:], "    "+key+":")
		eol := at + strings.Index(text[at:], "\n")
		text = text[:at] + "    " + rest + text[eol:]
	}
	doc, err := statefile.Parse([]byte(text))
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return doc.State
}

func TestIntentDefeated(t *testing.T) {
	newAtom := "append   - id: A6\n    description: \"new\"\n    status: pending\n    depends_on: []"
	cases := []struct {
		name          string
		before, after []string
		later         []string
		want          string
	}{
		{
			name:   "required-by reset of an in-progress atom, its worker finishes",
			before: nil,
			after:  []string{newAtom, "A2 status: pending", "A2 depends_on: [A1, A6]"},
			later:  []string{newAtom, "A2 status: resolved", "A2 depends_on: [A1, A6]"},
			want:   "A2 came back resolved while A6, which it depends on, is pending: the worker that was on A2 finished after the correction",
		},
		{
			name:  "the same, redone in order",
			after: []string{newAtom, "A2 status: pending", "A2 depends_on: [A1, A6]"},
			later: []string{newAtom, "A6 status: resolved", "A2 status: resolved", "A2 depends_on: [A1, A6]"},
			want:  "",
		},
		{
			name:   "force-or drops an in-progress choice, its worker finishes",
			before: []string{"A4 status: in_progress", "select A4"},
			after:  []string{"A4 status: pending"},
			later:  []string{"A4 status: resolved"},
			want:   "A4 came back resolved although OR group g selects A3: the worker that was on A4 finished after the correction",
		},
		{
			name:   "the loop switches back to it itself",
			before: []string{"A4 status: in_progress", "select A4"},
			after:  []string{"A4 status: pending"},
			later:  []string{"A4 status: resolved", "select A4"},
			want:   "",
		},
		{
			name:  "redo of a resolved atom: a dependent in progress finishes",
			after: []string{"A1 status: pending", "A2 status: pending"},
			later: []string{"A1 status: pending", "A2 status: resolved"},
			want:  "A2 came back resolved while A1, which it depends on, is pending: the worker that was on A2 finished after the correction",
		},
		{
			name:  "redo: the loop does it again, properly",
			after: []string{"A1 status: pending", "A2 status: pending"},
			later: []string{"A1 status: resolved", "A2 status: in_progress"},
			want:  "",
		},
		{
			name:  "a pending atom gains a dependency and the loop runs it from a stale read",
			after: []string{newAtom, "A5 depends_on: [A6]"},
			later: []string{newAtom, "A5 depends_on: [A6]", "A5 status: resolved"},
			want:  "A5 came back resolved while A6, which it depends on, is pending: the loop ran it on what it read before the correction",
		},
		{
			name:  "a deleted atom comes back",
			after: []string{"delete A5"},
			later: nil,
			want:  "A5, which the correction deleted, is back in the file: a loop write added it again",
		},
		{
			name:  "a deleted atom's id reused for new work",
			after: []string{"delete A5"},
			later: []string{"A5 description: \"other work\""},
			want:  "",
		},
		{
			name:  "a constraint change has nothing to defeat",
			after: nil,
			later: []string{"A2 status: resolved"},
			want:  "",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before, after := intentState(t, c.before...), intentState(t, c.after...)
			in := model.IntentOf(before, after)
			if got := in.Defeated(after); got != "" {
				t.Fatalf("the correction's own result is taken as undone: %s", got)
			}
			later := intentState(t, c.later...)
			if got := in.Defeated(later); got != c.want {
				t.Fatalf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// An atom listed as a choice of one OR group whose own or_group field
// names another is in the one it names, for the guard as for Derive: A4,
// in g's choices with or_group h, comes back resolved while h selects it.
// That is the loop's choice, not a correction undone (g selects A3).
func TestIntentDefeatedReadsTheORGroupAsDerive(t *testing.T) {
	inH := func(st *model.State) *model.State {
		st.Atoms[3].ORGroup = "h"
		st.ORGroups = append(st.ORGroups, model.ORGroup{Name: "h", Choices: []string{"A4", "A5"}, Selected: "A4"})
		return st
	}
	before := inH(intentState(t, "A4 status: in_progress"))
	after := inH(intentState(t))
	later := inH(intentState(t, "A4 status: resolved"))
	if g := model.Derive(later).ORGroupOf["A4"]; g != "h" {
		t.Fatalf("Derive puts A4 in OR group %q, want h", g)
	}
	in := model.IntentOf(before, after)
	if in.Empty() {
		t.Fatal("the intent watches nothing")
	}
	if got := in.Defeated(later); got != "" {
		t.Fatalf("A4, selected by its own OR group h, is taken as undone: %s", got)
	}
	// In g alone (no or_group of its own naming another), the same
	// version undoes the correction.
	later.Atoms[3].ORGroup = "g"
	if got, want := in.Defeated(later), "A4 came back resolved although OR group g selects A3: the worker that was on A4 finished after the correction"; got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

// The guard checks every version of the file the TUI sees against each
// correction it guards: its lineage when the correction is missing, its
// intent when it is there. At 10,000 atoms:
func BenchmarkGuardChecks10k(b *testing.B) {
	data := gen.Generate(gen.Options{Atoms: 10000, Seed: 1, Resolved: 0.3, ORGroups: 20})
	doc, err := statefile.Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	st := doc.State
	l := model.LineageOf(st)
	// An intent with atoms to watch: A5000 reset, A6000 deleted.
	after := *st
	after.Atoms = append([]model.Atom(nil), st.Atoms...)
	after.Atoms[4999].Status = model.StatusPending
	after.Atoms = append(after.Atoms[:5999], after.Atoms[6000:]...)
	before := *st
	before.Atoms = append([]model.Atom(nil), st.Atoms...)
	before.Atoms[4999].Status = model.StatusInProgress
	in := model.IntentOf(&before, &after)
	b.Run("lineage", func(b *testing.B) {
		for b.Loop() {
			if brk := l.Check(st); brk != nil {
				b.Fatal(brk.Reason)
			}
		}
	})
	b.Run("intent", func(b *testing.B) {
		for b.Loop() {
			in.Defeated(st)
		}
	})
	b.Run("lineage of", func(b *testing.B) {
		for b.Loop() {
			model.LineageOf(st)
		}
	})
}

// corrState is intentState with corrections[] holding the given
// descriptions, in order (one timestamp apart).
func corrState(t *testing.T, descs ...string) *model.State {
	t.Helper()
	st := intentState(t)
	for i, d := range descs {
		st.Corrections = append(st.Corrections, model.Correction{
			Timestamp: "2026-11-27T10:00:0" + string(rune('0'+i)) + "Z", Type: model.CorrectionConstraint, Description: d})
	}
	return st
}

// Two corrections made at once by two aot-tui processes interleave with
// a loop write: B (what ours was planned on) ends with someone's Y; a
// script that read the file before Y writes it back without Y, and a
// third correction X lands on that before Y's guard puts Y back. That
// file is the loop's work behind by Y — not an older version — and once Y
// is back (after X) it descends again.
func TestLineageAcrossInterleavedCorrections(t *testing.T) {
	b := corrState(t, "e1", "e2", "Y")
	l := model.LineageOf(b)
	behind := corrState(t, "e1", "e2", "X")
	brk := l.Check(behind)
	if brk == nil || brk.Behind != 1 {
		t.Fatalf("Y missing and X appended: %+v, want a Break behind by 1", brk)
	}
	back := corrState(t, "e1", "e2", "X", "Y")
	back.Corrections[3] = b.Corrections[2] // Y as written, put back after X
	if brk := l.Check(back); brk != nil {
		t.Fatalf("Y put back after X: %+v, want it to descend", brk)
	}
	older := corrState(t, "e1")
	if brk := l.Check(older); brk == nil || brk.Behind == 0 {
		t.Fatalf("an older version lacking two entries: %+v, want a Break behind", brk)
	}
	other := corrState(t, "x1", "x2", "x3", "x4")
	if brk := l.Check(other); brk == nil || brk.Behind != 0 {
		t.Fatalf("corrections that differ from the first on, four of them: %+v, want a Break at once", brk)
	}
}
