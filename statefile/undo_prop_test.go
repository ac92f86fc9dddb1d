package statefile

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
)

var undoSeed = flag.Uint64("undo-seed", 0, "replay one state of TestUndoProperty (the seed it logs on failure)")

// TestUndoProperty: random valid states (those of TestCorrectionProperty,
// and testdata/rich.md with its unknown fields, block summaries and
// quality rubric) × random corrections of every type, with and without
// --interrupt. Each correction that is planned and written is undone
// (model.Inverse of the versions before and after it, planned on the
// version after): the undo is planned without a refusal, applies, parses,
// adds no validation error, changes no line it does not target, keeps the
// body and line endings, writes trail entries with the schema's keys, is
// read by the loop's line-based tools as by our parser (no loop-tools
// warning: internal/looptools, recorded against the plugin's scripts) —
// and leaves the atoms, their dependencies and bindings, the OR groups'
// selections, choices and failed lists, the decompositions, the
// constraints, the objective and the stop request as they were before the
// correction. An atom the correction took out of progress comes back
// pending: its worker was interrupted (compared as pending). The file's
// order of atoms, of choices and of dependencies is not compared: an
// atom deleted and added again comes back last. Undoing the undo puts
// the correction back, compared the same way.
func TestUndoProperty(t *testing.T) {
	states, perState := 120, 8
	if testing.Short() {
		states = 30
	}
	rich, err := os.ReadFile("../testdata/rich.md")
	if err != nil {
		t.Fatal(err)
	}
	seeds := make([]uint64, 0, states)
	if *undoSeed != 0 {
		seeds = append(seeds, *undoSeed)
	} else {
		for i := range states {
			seeds = append(seeds, uint64(i+1)*0x9e3779b97f4a7c15+3)
		}
	}
	undone := map[string]int{}
	for _, seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 11))
		data, layout := randomState(r, seed)
		if seed%5 == 0 {
			data, layout = rich, "rich.md"
		}
		doc, err := Parse(data)
		if err != nil {
			t.Fatalf("seed %d (%s): %v", seed, layout, err)
		}
		for k := range perState {
			req := randomRequest(r, doc.State)
			if _, flagOnly := req.(model.SetRedirect); flagOnly {
				continue // the handshake flag is not a correction
			}
			c := model.PlanContext{Now: time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC), Note: pick(r, "", "a note"), Interrupt: r.IntN(2) == 0}
			kind, err := checkUndo(doc, req, c)
			if err != nil {
				t.Fatalf("seed %d (%s, %d atoms), request %d: %s %#v\n%v\n(replay with -undo-seed %d)",
					seed, layout, len(doc.State.Atoms), k, req.Kind(), req, err, seed)
			}
			if kind != "" {
				undone[kind]++
			}
		}
	}
	t.Logf("undone by kind: %v", undone)
	if *undoSeed == 0 {
		for _, kind := range []string{"add-atom", "delete-atom", "force-or", "constraints", "objective", "override-binding", "stop"} {
			if undone[kind] == 0 {
				t.Errorf("no %s correction was undone: the generator should reach every kind", kind)
			}
		}
	}
}

// checkUndo plans req on doc and, when it is planned, undoes it and
// checks the property; it returns the kind undone ("" when req was
// refused).
func checkUndo(doc *Document, req model.Request, c model.PlanContext) (string, error) {
	p, err := model.PlanCorrection(doc.State, req, c)
	if err != nil {
		return "", nil
	}
	data, err := ApplyEdits(doc, p.Edits)
	if err != nil {
		return "", fmt.Errorf("the correction does not apply: %v", err)
	}
	after, err := Parse(data)
	if err != nil {
		return "", err
	}
	if model.WritePolicy("state", doc.State, after.State, p.AnyFile) != nil {
		return "", nil // statefile would not write it
	}
	interrupted := map[string]bool{}
	for _, in := range p.Interrupts {
		interrupted[in.Atom] = true
	}
	u, final, err := undoOnce(after, doc.State, after.State, c)
	if err != nil {
		return "", fmt.Errorf("undo: %w", err)
	}
	if err := sameModel(doc.State, final.State, interrupted); err != nil {
		return "", fmt.Errorf("after the undo (%s): %w\n%s", u.Summary, err, UnifiedDiff("state", data, final.Data))
	}
	if p.Correction != nil {
		if u.Correction == nil || u.Correction.Type != p.Correction.Type || u.Correction.TrailCleared ||
			!strings.Contains(u.Correction.Description, p.Correction.Timestamp) {
			return "", fmt.Errorf("the undo's entry is %+v; want the type %s, trail_cleared false and the time of the correction undone", u.Correction, p.Correction.Type)
		}
	} else if u.Correction != nil {
		return "", fmt.Errorf("the undo of a %s records %+v; a stop records none", req.Kind(), u.Correction)
	}
	// Undoing the undo puts the correction back.
	_, again, err := undoOnce(final, after.State, final.State, c)
	if err != nil {
		return "", fmt.Errorf("undo of the undo: %w", err)
	}
	if err := sameModel(after.State, again.State, nil); err != nil {
		return "", fmt.Errorf("after the undo of the undo: %w\n%s", err, UnifiedDiff("state", final.Data, again.Data))
	}
	return req.Kind(), nil
}

// undoOnce plans the undo of the correction that turned before into
// after on doc (which holds after), applies it and checks what every
// correction must keep.
func undoOnce(doc *Document, before, after *model.State, c model.PlanContext) (*model.Plan, *Document, error) {
	inv, err := model.Inverse(before, after)
	if err != nil {
		return nil, nil, fmt.Errorf("no inverse: %v", err)
	}
	c.Now = c.Now.Add(time.Minute)
	u, err := model.PlanCorrection(doc.State, inv, c)
	if err != nil {
		var ref *model.Refusal
		if !errors.As(err, &ref) || strings.Contains(ref.Reason, "\n") {
			return nil, nil, fmt.Errorf("refused without a one-line refusal: %v", err)
		}
		return nil, nil, fmt.Errorf("refused on the file the correction wrote: %v", err)
	}
	out, err := ApplyEdits(doc, u.Edits)
	if err != nil {
		return nil, nil, fmt.Errorf("does not apply: %v\nedits: %v", err, u.Edits)
	}
	nd, err := parseTree(out)
	if err != nil {
		return nil, nil, fmt.Errorf("does not parse: %v", err)
	}
	if err := model.WritePolicy("state", doc.State, nd.State, u.AnyFile); err != nil {
		return nil, nil, fmt.Errorf("%v\n%s", err, UnifiedDiff("state", doc.Data, out))
	}
	if err := untouchedKept(doc, u.Edits, out); err != nil {
		return nil, nil, fmt.Errorf("%v\n%s", err, UnifiedDiff("state", doc.Data, out))
	}
	if err := sameLayout(doc.Data, out); err != nil {
		return nil, nil, err
	}
	if err := trailEntryKeys(nd, len(u.Trails)); err != nil {
		return nil, nil, err
	}
	// The loop's line-based tools read it as we do, if they read both
	// versions it goes between so (a correction can write text that they
	// split the frontmatter at: then so does the undo that puts it back).
	if w := model.LoopToolsWarnings(nd.State); len(w) > 0 && len(model.LoopToolsWarnings(doc.State)) == 0 && len(model.LoopToolsWarnings(before)) == 0 {
		return nil, nil, fmt.Errorf("the loop's tools read the undone file otherwise: %v\n%s", w, UnifiedDiff("state", doc.Data, out))
	}
	return u, nd, nil
}

// sameModel compares what an undo restores, ignoring order, the
// corrections[] and trail bookkeeping and the handshake flag; an atom of
// loose was in progress in want and may be pending in got.
func sameModel(want, got *model.State, loose map[string]bool) error {
	wa, ga := atomMap(want), atomMap(got)
	if !sameSet(mapKeys(wa), mapKeys(ga)) {
		return fmt.Errorf("atoms %v, want %v", sortedKeys(ga), sortedKeys(wa))
	}
	for id, w := range wa {
		g := ga[id]
		ws, gs := w.Status, g.Status
		if loose[id] && ws == model.StatusInProgress && gs == model.StatusPending {
			gs = ws
		}
		if w.Description != g.Description || ws != gs || !sameSet(w.DependsOn, g.DependsOn) || w.ORGroup != g.ORGroup || plain(w.Extra) != plain(g.Extra) {
			return fmt.Errorf("atom %s is %+v, want %+v", id, g, w)
		}
	}
	wb, gb := bindingMap(want), bindingMap(got)
	if !reflect.DeepEqual(wb, gb) {
		return fmt.Errorf("bindings %v, want %v", gb, wb)
	}
	if wg, gg := groupMap(want), groupMap(got); !reflect.DeepEqual(wg, gg) {
		return fmt.Errorf("OR groups %v, want %v", gg, wg)
	}
	if wd, gd := decompMap(want), decompMap(got); !reflect.DeepEqual(wd, gd) {
		return fmt.Errorf("decompositions %v, want %v", gd, wd)
	}
	if w, g := plain(want.Objective), plain(got.Objective); w != g {
		return fmt.Errorf("objective\n%s\nwant\n%s", g, w)
	}
	if w, g := want.Control, got.Control; w.StopRequested != g.StopRequested || w.StopReason != g.StopReason {
		return fmt.Errorf("stop_requested %v %q, want %v %q", g.StopRequested, g.StopReason, w.StopRequested, w.StopReason)
	}
	return nil
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	k := mapKeys(m)
	sort.Strings(k)
	return k
}

func sorted(ids []string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

func bindingMap(s *model.State) map[string]string {
	m := map[string]string{}
	for _, b := range s.Bindings {
		m[b.AtomID] = fmt.Sprintf("%q %q %s", b.Summary, b.Artifacts, plain(b.Extra))
	}
	return m
}

func groupMap(s *model.State) map[string]string {
	m := map[string]string{}
	for _, g := range s.ORGroups {
		m[g.Name] = fmt.Sprintf("selected %q choices %q failed %q %s", g.Selected, sorted(g.Choices), sorted(g.Failed), plain(g.Extra))
	}
	return m
}

func decompMap(s *model.State) map[string]string {
	m := map[string]string{}
	for _, d := range s.Decompositions {
		m[d.Parent] = fmt.Sprintf("%q %q %s", sorted(d.Children), d.Reason, plain(d.Extra))
	}
	return m
}

// plain prints a model value without line numbers (fields named Line, and
// the numbers of Lines maps: only which keys are present counts).
func plain(v any) string {
	var b strings.Builder
	plainValue(&b, reflect.ValueOf(v), false)
	return b.String()
}

func plainValue(b *strings.Builder, v reflect.Value, keysOnly bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		plainValue(b, v.Elem(), false)
	case reflect.Struct:
		b.WriteString("{")
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.Name == "Line" {
				continue
			}
			fmt.Fprintf(b, "%s:", f.Name)
			plainValue(b, v.Field(i), f.Name == "Lines")
			b.WriteString(" ")
		}
		b.WriteString("}")
	case reflect.Slice:
		b.WriteString("[")
		for i := range v.Len() {
			plainValue(b, v.Index(i), false)
			b.WriteString(" ")
		}
		b.WriteString("]")
	case reflect.Map:
		var keys []string
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		if keysOnly {
			fmt.Fprint(b, keys)
			return
		}
		for _, k := range keys {
			fmt.Fprintf(b, "%s=", k)
			plainValue(b, v.MapIndex(reflect.ValueOf(k)), false)
		}
	default:
		fmt.Fprintf(b, "%#v", v.Interface())
	}
}

// BenchmarkUndo measures what an undo adds at 10,000 atoms: model.Inverse
// of the versions around a correction (the session makes it after each
// write) and planning the undo on the version after it.
//
//	go test ./statefile -run '^$' -bench Undo -benchtime 20x
func BenchmarkUndo(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		data := gen.Generate(gen.Options{Atoms: n, Seed: 1, Resolved: 0.5, ORGroups: n / 50, Decompositions: n / 100})
		doc, err := Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		c := model.PlanContext{Now: time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)}
		for _, req := range []model.Request{
			model.AddAtom{Description: "benchmark", DependsOn: []string{doc.State.Atoms[0].ID}},
			model.OverrideBinding{ID: firstResolved(doc.State), Redo: true},
		} {
			p, err := model.PlanCorrection(doc.State, req, c)
			if err != nil {
				b.Fatal(err)
			}
			out, err := ApplyEdits(doc, p.Edits)
			if err != nil {
				b.Fatal(err)
			}
			after, err := Parse(out)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/%d/inverse", req.Kind(), n), func(b *testing.B) {
				for b.Loop() {
					if _, err := model.Inverse(doc.State, after.State); err != nil {
						b.Fatal(err)
					}
				}
			})
			inv, _ := model.Inverse(doc.State, after.State)
			b.Run(fmt.Sprintf("%s/%d/plan", req.Kind(), n), func(b *testing.B) {
				for b.Loop() {
					if _, err := model.PlanCorrection(after.State, inv, c); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func firstResolved(s *model.State) string {
	for _, a := range s.Atoms {
		if a.Status == model.StatusResolved {
			return a.ID
		}
	}
	return ""
}
