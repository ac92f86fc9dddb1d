package statefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/model"
)

// These tests land another writer's write in each window of the write
// protocol, deterministically (through testHook), in each of the ways the
// loop writes: in place through the same file (its Python scripts'
// write_text) and by renaming a new file over it (sed -i, its stop hook's
// temp file + mv). Whatever the window, both the loop's write and the
// correction end up in the file, or the caller is told — with the exchange
// and with the rename that replaces it where there is none (bothWays).

// withHook runs f at install's step once (the first time it is reached).
func withHook(t *testing.T, step string, f func()) {
	t.Helper()
	thenAt(step, f)
	t.Cleanup(func() { testHook = nil })
}

// thenAt runs f at install's step once, from within another hook: at a
// later window of the same write.
func thenAt(step string, f func()) {
	testHook = func(s string) {
		if s == step {
			testHook = nil
			f()
		}
	}
}

// slowWrite is a script's in-place write caught at work: it opens path,
// truncating it, and writes the first n bytes of data now and the rest
// after a pause (the file is then closed).
func slowWrite(t *testing.T, path string, data []byte, n int, pause time.Duration) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data[:n]); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(pause)
		f.Write(data[n:])
		f.Close()
	}()
}

// corrected is a state file with the addAtom correction written: its path,
// what it held before, and the write's result.
func corrected(t *testing.T) (path string, before []byte, res *UpdateResult) {
	t.Helper()
	path, before = stateFile(t, 0o644)
	res, err := Update(path, UpdateOptions{}, planOf(addAtom))
	if err != nil {
		t.Fatal(err)
	}
	return path, before, res
}

// loopWrite is one way the loop writes the file.
type loopWrite struct {
	name  string
	write func(t *testing.T, path string, data []byte)
}

var loopWrites = []loopWrite{
	{"in place (write_text)", func(t *testing.T, path string, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}},
	{"rename (sed -i, temp + mv)", func(t *testing.T, path string, data []byte) {
		tmp := filepath.Join(filepath.Dir(path), ".hook-tmp")
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}},
}

// withBinding is data with one more binding, as the loop's add_binding.py
// writes it.
func withBinding(data []byte, name string) []byte {
	return bytes.Replace(data, []byte("\nbindings:\n"), []byte("\nbindings:\n  "+name+":\n    summary: \"loop write\"\n    artifacts: []\n"), 1)
}

// withAtom is data with one more atom at the end of atoms, as the loop's
// decomposition writes it: where a correction's new atom goes too.
func withAtom(t *testing.T, data []byte, id string) []byte {
	t.Helper()
	doc, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ApplyEdits(doc, []model.Edit{model.Append(model.P("atoms"),
		model.Map{{Key: "id", Value: id}, {Key: "description", Value: "loop's own"}, {Key: "status", Value: "pending"}, {Key: "depends_on", Value: model.Flow{}}})})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func readState(t *testing.T, path string) *model.State {
	t.Helper()
	doc, err := Load(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	return doc.State
}

func hasCorrection(st *model.State, substr string) bool {
	for _, c := range st.Corrections {
		if strings.Contains(c.Description, substr) {
			return true
		}
	}
	return false
}

// carriedRunbook is Carried for the addAtom correction of these tests.
func carriedRunbook(doc *Document) bool { return hasCorrection(doc.State, "Write the runbook") }

func TestLoopWriteJustBeforeTheExchangeIsKept(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		needHeld(t)
		for _, w := range loopWrites {
			t.Run(w.name, func(t *testing.T) {
				path, before := stateFile(t, 0o644)
				withHook(t, "checked", func() { w.write(t, path, withBinding(before, "W1")) })
				res, err := Update(path, UpdateOptions{Carried: carriedRunbook}, planOf(addAtom))
				if err != nil {
					t.Fatal(err)
				}
				st := readState(t, path)
				if _, ok := st.Binding("W1"); !ok {
					t.Fatal("the loop's write was lost")
				}
				if !hasCorrection(st, "Write the runbook") || len(st.Atoms) != 9 {
					t.Fatalf("the correction is missing or applied twice (%d atoms)", len(st.Atoms))
				}
				final, _ := os.ReadFile(path)
				if !res.Wrote || res.Merged != 1 || !bytes.Equal(res.After, final) {
					t.Fatalf("wrote %v, merged %d; After is the file: %v", res.Wrote, res.Merged, bytes.Equal(res.After, final))
				}
				if !bytes.Contains(res.Before, []byte("  W1:\n")) {
					t.Fatal("Before is not the loop's write the correction was re-applied on")
				}
				onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
			})
		}
	})
}

func TestLoopWriteThatAlreadyCarriesTheChangeIsPutBack(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		needHeld(t)
		path, before := stateFile(t, 0o644)
		// What the loop wrote is the correction plus its own binding (it read
		// a copy of the correction made elsewhere).
		res0, err := Update(path, UpdateOptions{DryRun: true}, planOf(addAtom))
		if err != nil {
			t.Fatal(err)
		}
		theirs := withBinding(res0.After, "W2")
		withHook(t, "checked", func() { loopWrites[1].write(t, path, theirs) })
		res, err := Update(path, UpdateOptions{Carried: carriedRunbook}, planOf(addAtom))
		if err != nil {
			t.Fatal(err)
		}
		if final, _ := os.ReadFile(path); !bytes.Equal(final, theirs) || !bytes.Equal(res.After, theirs) {
			t.Fatal("the loop's write, which carries the correction, is not what the file holds")
		}
		_ = before
	})
}

func TestCorrectionNoLongerPossibleOnTheLoopWrite(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		needHeld(t)
		// The loop resolves A8 in the instant before a delete of A8 lands: the
		// loop's write is put back and the refusal reported.
		path, before := stateFile(t, 0o644)
		st := readState(t, path)
		i := -1
		for k, a := range st.Atoms {
			if a.Status != model.StatusResolved && len(model.Derive(st).Dependents()[a.ID]) == 0 {
				i = k
			}
		}
		if i < 0 {
			t.Fatal("fixture: no deletable atom")
		}
		id := st.Atoms[i].ID
		doc, _ := Parse(before)
		resolved, err := ApplyEdits(doc, []model.Edit{model.Replace(model.P("atoms", i, "status"), "resolved"),
			model.AddKey(model.P("bindings"), id, model.Map{{Key: "summary", Value: "done"}, {Key: "artifacts", Value: model.Flow{}}})})
		if err != nil {
			t.Fatal(err)
		}
		withHook(t, "checked", func() { loopWrites[0].write(t, path, resolved) })
		res, err := Update(path, UpdateOptions{}, planOf(model.DeleteAtom{ID: id}))
		var ref *model.Refusal
		if !errors.As(err, &ref) || ref.Rule != model.RuleResolved || res.Wrote {
			t.Fatalf("err %v, wrote %v; want the refusal on the loop's write", err, res.Wrote)
		}
		if final, _ := os.ReadFile(path); !bytes.Equal(final, resolved) {
			t.Fatal("the loop's write is not what the file holds")
		}
		onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
	})
}

func TestPreparedWriteMeetsALoopWrite(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		needHeld(t)
		// A previewed correction is written exactly as previewed or not at
		// all: a loop write that lands in the instant before the exchange is
		// put back, and the caller told to plan again (ErrStale) — whether or
		// not the two would merge.
		path, before := stateFile(t, 0o644)
		prev, err := Update(path, UpdateOptions{DryRun: true}, planOf(addAtom))
		if err != nil {
			t.Fatal(err)
		}
		clash := withAtom(t, before, "A20")
		for name, theirs := range map[string][]byte{"disjoint": withBinding(before, "W3"), "same lines": clash} {
			t.Run(name, func(t *testing.T) {
				if err := os.WriteFile(path, before, 0o644); err != nil {
					t.Fatal(err)
				}
				withHook(t, "checked", func() { loopWrites[1].write(t, path, theirs) })
				res, err := Update(path, UpdateOptions{Prepared: prev}, nil)
				if !errors.Is(err, ErrStale) || res.Wrote {
					t.Fatalf("err %v, wrote %v; want ErrStale", err, res.Wrote)
				}
				if final, _ := os.ReadFile(path); !bytes.Equal(final, theirs) {
					t.Fatal("the loop's write is not what the file holds")
				}
				onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
			})
		}
	})
}

func TestLateWriteOnTheSameLinesIsMergedByPlanningAgain(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		// The late loop write appends an atom where the correction appended
		// its own: line by line they clash. While the file still holds our
		// write, the correction is planned again on the loop's write instead.
		path, before, res := corrected(t)
		theirs := withAtom(t, before, "A20")
		final, err := Merge(path, res.Before, theirs, MergeOptions{Installed: res.After, Plan: planOf(addAtom), Carried: carriedRunbook})
		if err != nil {
			t.Fatal(err)
		}
		st := readState(t, path)
		if _, ok := st.Atom("A20"); !ok || !hasCorrection(st, "Write the runbook") || len(st.Atoms) != 10 {
			t.Fatalf("the late write or the correction is missing (%d atoms)", len(st.Atoms))
		}
		if now, _ := os.ReadFile(path); !bytes.Equal(now, final) {
			t.Fatal("Merge did not return what the file holds")
		}
		onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
	})
}

func TestUnmergeableWritesAreKeptBesideTheFile(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		// A late in-place write into the replaced file that clashes with what
		// the file holds now: it is kept beside the file, and the error says
		// where (nothing is lost).
		path, before, res := corrected(t)
		theirs := withAtom(t, before, "A20")
		_, err := Merge(path, res.Before, theirs, MergeOptions{})
		if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "kept in") {
			t.Fatalf("err %v; want a conflict naming where the write is kept", err)
		}
		checkKeptBeside(t, path, theirs, res.After)
	})
}

func TestWriteTextThatOpenedJustBeforeTheExchange(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		needHeld(t)
		// Python's write_text opens the file (truncating it) just before our
		// exchange and writes a moment later. The exchange sees the file
		// emptied and puts it back at once; the script's write lands in the
		// file at path, and the correction is planned again on it.
		path, before := stateFile(t, 0o644)
		theirs := withBinding(before, "W4")
		withHook(t, "checked", func() { slowWrite(t, path, theirs, 0, 20*time.Millisecond) })
		res, err := Update(path, UpdateOptions{Carried: carriedRunbook}, planOf(addAtom))
		if err != nil {
			t.Fatal(err)
		}
		st := readState(t, path)
		if _, ok := st.Binding("W4"); !ok || !hasCorrection(st, "Write the runbook") || res.Merged != 1 {
			t.Fatalf("the script's write or the correction is missing (merged %d)", res.Merged)
		}
		onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
	})
}

func TestInPlaceWriterThatOpenedBeforeTheExchange(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		needHeld(t)
		// A script opens the file for reading and writing before our exchange
		// and truncates and writes after it: into the file we replaced. The
		// Displaced handle sees it, and Merge puts its change into the file.
		path, before := stateFile(t, 0o644)
		var f *os.File
		withHook(t, "checked", func() {
			var err error
			if f, err = os.OpenFile(path, os.O_RDWR, 0); err != nil {
				t.Fatal(err)
			}
		})
		res, err := Update(path, UpdateOptions{KeepDisplaced: true, Carried: carriedRunbook}, planOf(addAtom))
		if err != nil {
			t.Fatal(err)
		}
		d := res.Displaced
		if d == nil {
			t.Fatal("the replaced file was not kept open")
		}
		defer d.Close()
		theirs := withBinding(before, "W4")
		if err := f.Truncate(0); err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt(theirs, 0); err != nil {
			t.Fatal(err)
		}
		f.Close()
		data, changed := d.Changed()
		if !changed || !bytes.Equal(data, theirs) {
			t.Fatalf("the late write into the replaced file was not seen (changed %v)", changed)
		}
		if _, err := Merge(path, d.Base(), data, MergeOptions{}); err != nil {
			t.Fatal(err)
		}
		st := readState(t, path)
		if _, ok := st.Binding("W4"); !ok || !hasCorrection(st, "Write the runbook") {
			t.Fatal("the late loop write or the correction is missing")
		}
		onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
	})
}

func TestWriteCaughtHalfWayAtTheExchangeIsAwaited(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		needHeld(t)
		// At the exchange the replaced file is cut short; its writer finishes
		// a little later. The correction is re-applied on the finished write.
		path, before := stateFile(t, 0o644)
		theirs := withBinding(before, "W5")
		withHook(t, "checked", func() { slowWrite(t, path, theirs, len(theirs)/3, 15*time.Millisecond) })
		if _, err := Update(path, UpdateOptions{Carried: carriedRunbook}, planOf(addAtom)); err != nil {
			t.Fatal(err)
		}
		st := readState(t, path)
		if _, ok := st.Binding("W5"); !ok || !hasCorrection(st, "Write the runbook") {
			t.Fatal("the loop's write or the correction is missing")
		}
	})
}

func TestFileRewrittenOverAndOverIsAConflictNotInvalid(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		// A file that never holds still long enough to read whole is being
		// rewritten: exit 3 (ErrConflict), never exit 1 (invalid state).
		path, before := stateFile(t, 0o644)
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := 1; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				// Always caught cut short, a different cut each time.
				os.WriteFile(path, before[:len(before)/2+i%97], 0o644)
				time.Sleep(time.Millisecond)
			}
		}()
		_, err := Update(path, UpdateOptions{}, planOf(addAtom))
		close(stop)
		<-done
		if !errors.Is(err, ErrConflict) {
			t.Fatalf("err %v; want ErrConflict", err)
		}
		if _, ok := ParseError(err); ok {
			t.Fatal("a file being rewritten was reported as invalid")
		}
	})
}

func TestFileCaughtEmptyIsReadAgain(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		// write_text truncates, then writes: a read in between sees 0 bytes.
		path, before := stateFile(t, 0o644)
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(30 * time.Millisecond)
			os.WriteFile(path, before, 0o644)
		}()
		res, err := Update(path, UpdateOptions{}, planOf(addAtom))
		if err != nil || !res.Wrote {
			t.Fatalf("err %v; want the correction written once the file was whole", err)
		}
	})
}

func TestThreeWritesInTheInstantOfTheExchange(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		needHeld(t)
		// A loop write lands just before our exchange, and another in the
		// microseconds between the exchange and putting the first back: the
		// newest is put in place and the other kept beside the file (the
		// error says where): nothing is lost.
		path, before := stateFile(t, 0o644)
		first, second := withBinding(before, "W7"), withBinding(withBinding(before, "W7"), "W8")
		withHook(t, "checked", func() {
			loopWrites[1].write(t, path, first)
			thenAt("swapped", func() { loopWrites[1].write(t, path, second) })
		})
		_, err := Update(path, UpdateOptions{}, planOf(addAtom))
		if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "kept in") {
			t.Fatalf("err %v; want a conflict naming the kept file", err)
		}
		if final, _ := os.ReadFile(path); !bytes.Equal(final, second) {
			t.Fatal("the newest loop write is not what the file holds")
		}
		kept, _ := filepath.Glob(path + ".aot-tui-kept-*")
		if len(kept) != 1 {
			t.Fatalf("kept %v", kept)
		}
		if data, _ := os.ReadFile(kept[0]); !bytes.Equal(data, first) {
			t.Fatal("the kept file is not the first loop write")
		}
	})
}

func TestThirdWriteMadeOnOurBytesIsMerged(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		needHeld(t)
		// The likeliest three-write meeting: a loop write lands just before our
		// exchange; a second writer reads our bytes in the microseconds they
		// are in place and writes on them. Its write goes back in place with
		// the first one's change merged in: nothing is lost, and the
		// correction (carried by the second write) is there.
		path, before := stateFile(t, 0o644)
		first := withBinding(before, "W9")
		withHook(t, "checked", func() {
			loopWrites[1].write(t, path, first)
			thenAt("swapped", func() {
				ours, _ := os.ReadFile(path) // our bytes, in place for an instant
				loopWrites[1].write(t, path, bytes.Replace(ours, []byte("  iteration: 7"), []byte("  iteration: 8"), 1))
			})
		})
		res, err := Update(path, UpdateOptions{Carried: carriedRunbook}, planOf(addAtom))
		if err != nil {
			t.Fatal(err)
		}
		st := readState(t, path)
		if _, ok := st.Binding("W9"); !ok || st.Control.Iteration != 8 || !hasCorrection(st, "Write the runbook") || len(st.Atoms) != 9 {
			t.Fatalf("a write or the correction is missing, or the correction is there twice (%d atoms, iteration %d)", len(st.Atoms), st.Control.Iteration)
		}
		if !res.Wrote {
			t.Fatal("the correction is in the file but reported not written")
		}
		onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
	})
}

func TestInPlaceWriteIntoOurBytesWhileTheyAreInPlaceIsKept(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		needHeld(t)
		// A loop write lands just before our exchange, and a script opens
		// the file (our bytes, in place until the first write goes back)
		// and rewrites it in place, as write_text does. Its write is the
		// newest: it goes back in place with the first one's change merged
		// in. The exchange used to swap it away with our file and delete
		// it (seen in TestStressLoopWriters under load: a retired binding
		// came back).
		path, before := stateFile(t, 0o644)
		first := append(bytes.Clone(before), "sed 1\n"...)
		withHook(t, "checked", func() {
			loopWrites[1].write(t, path, first)
			thenAt("swapped", func() { loopWrites[0].write(t, path, withBinding(before, "W8")) })
		})
		if _, err := Update(path, UpdateOptions{Carried: carriedRunbook}, planOf(addAtom)); err != nil {
			t.Fatal(err)
		}
		final, _ := os.ReadFile(path)
		st := readState(t, path)
		if _, ok := st.Binding("W8"); !ok {
			t.Error("the in-place write into our bytes (binding W8) is lost")
		}
		if !bytes.HasSuffix(final, []byte("\nsed 1\n")) {
			t.Error("the write just before the exchange (body line \"sed 1\") is lost")
		}
		if !hasCorrection(st, "Write the runbook") || len(st.Atoms) != 9 {
			t.Errorf("the correction is missing or there twice (%d atoms)", len(st.Atoms))
		}
		onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
	})
}

// The same meeting on a previewed write (the TUI's apply): reported
// written exactly when the file carries the correction, once. With the
// exchange, the third write goes back in place with the first one merged
// in, and it carries the correction: that is a write — Update used to say
// ErrStale, and the TUI re-planned the correction on a file that already
// had it ("no longer possible: the constraints already have those
// values", or the atom added twice). With the rename, the first write is
// put back with the third's own change merged in, without ours: stale.
func TestThirdWriteMadeOnOurPreparedBytesIsMerged(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		needHeld(t)
		path, before := stateFile(t, 0o644)
		prev, err := Update(path, UpdateOptions{DryRun: true}, planOf(addAtom))
		if err != nil {
			t.Fatal(err)
		}
		first := withBinding(before, "W9")
		withHook(t, "checked", func() {
			loopWrites[1].write(t, path, first)
			thenAt("swapped", func() {
				ours, _ := os.ReadFile(path) // our bytes, in place for an instant
				loopWrites[1].write(t, path, bytes.Replace(ours, []byte("  iteration: 7"), []byte("  iteration: 8"), 1))
			})
		})
		res, err := Update(path, UpdateOptions{Prepared: prev, Carried: carriedRunbook}, nil)
		if err != nil && !errors.Is(err, ErrStale) {
			t.Fatal(err)
		}
		st := readState(t, path)
		if _, ok := st.Binding("W9"); !ok || st.Control.Iteration != 8 {
			t.Fatal("a loop write is missing")
		}
		switch carried := hasCorrection(st, "Write the runbook"); {
		case err == nil && (!res.Wrote || !carried || len(st.Atoms) != 9):
			t.Fatalf("reported written; the file has %d atoms, the correction: %v", len(st.Atoms), carried)
		case err != nil && carried:
			t.Fatalf("%v, and the file carries the correction", err)
		}
		onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
	})
}

// A late write into the replaced file that does not parse cannot be
// merged, but it is the loop's: it is kept beside the file (it used to be
// dropped), and the file is left as our write made it.
func TestUnparseableLateWriteIsKeptBesideTheFile(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		path, _, res := corrected(t)
		theirs := []byte("---\ncontrol: [unclosed\n---\n")
		_, err := Merge(path, res.Before, theirs, MergeOptions{})
		if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "does not parse") || !strings.Contains(err.Error(), "kept in") {
			t.Fatalf("err %v; want a conflict saying the write does not parse and where it is kept", err)
		}
		checkKeptBeside(t, path, theirs, res.After)
	})
}

// checkKeptBeside checks that the loop's write theirs is kept, alone,
// beside path, and that path still holds ours.
func checkKeptBeside(t *testing.T, path string, theirs, ours []byte) {
	t.Helper()
	kept, _ := filepath.Glob(path + ".aot-tui-kept-*")
	if len(kept) != 1 {
		t.Fatalf("kept files %v", kept)
	}
	if data, _ := os.ReadFile(kept[0]); !bytes.Equal(data, theirs) {
		t.Fatal("the kept file is not the loop's write")
	}
	if final, _ := os.ReadFile(path); !bytes.Equal(final, ours) {
		t.Fatal("the file changed")
	}
}
