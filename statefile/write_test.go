package statefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/model"
	"github.com/fsnotify/fsnotify"
)

// The write protocol (docs/ARCHITECTURE.md §5): read → plan → apply → re-parse and
// re-validate → temp file in the same directory with the same mode, fsync →
// re-read the target, re-plan if it changed (bounded, then ErrConflict) →
// rename → fsync the directory. Never in place, never a temp file left.

var writeNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// stateFile writes the rich fixture into a fresh directory with mode.
func stateFile(t *testing.T, mode os.FileMode) (path string, data []byte) {
	t.Helper()
	data, err := os.ReadFile("../testdata/rich.md")
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "aot-loop-state.md")
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // whatever the umask
		t.Fatal(err)
	}
	return path, data
}

// planOf plans req on whatever the file holds when Update reads it.
func planOf(req model.Request) PlanFunc {
	return func(doc *Document) (*model.Plan, error) {
		return model.PlanCorrection(doc.State, req, model.PlanContext{Now: writeNow})
	}
}

var addAtom = model.AddAtom{Description: "Write the runbook", DependsOn: []string{"A2"}}

// onlyFiles fails unless dir holds exactly the named entries.
func onlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Fatalf("%s holds %v, want %v (a temp file left behind?)", dir, got, names)
	}
}

// statOf is path's FileInfo, to tell with os.SameFile whether the file at
// path was replaced (on every system: device and inode, or Windows's
// volume and file index).
func statOf(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

func fileMode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// bumpIteration rewrites the file in place as another writer would,
// returning the new bytes.
func bumpIteration(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^  iteration: (\d+)`).FindSubmatchIndex(data)
	n, _ := strconv.Atoi(string(data[m[2]:m[3]]))
	out := append(append(append([]byte{}, data[:m[2]]...), strconv.Itoa(n+1)...), data[m[3]:]...)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestUpdateWritesATempFileInTheSameDirectoryWithTheSameMode(t *testing.T) {
	bothWays(t, testTempFileAndMode)
}

func testTempFileAndMode(t *testing.T) {
	for _, mode := range []os.FileMode{0o600, 0o640, 0o644, 0o664, 0o604} {
		t.Run(mode.String(), func(t *testing.T) {
			path, before := stateFile(t, mode)
			dir := filepath.Dir(path)
			// A temp file anywhere else (os.TempDir) would fail.
			t.Setenv("TMPDIR", filepath.Join(dir, "no-such-dir"))
			w, err := fsnotify.NewWatcher()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if err := w.Add(dir); err != nil {
				t.Fatal(err)
			}
			was := statOf(t, path)

			res, err := Update(path, UpdateOptions{}, planOf(addAtom))
			if err != nil {
				t.Fatal(err)
			}
			after, _ := os.ReadFile(path)
			if !res.Wrote || res.Attempts != 1 || !bytes.Equal(after, res.After) || bytes.Equal(after, before) || !bytes.Equal(res.Before, before) {
				t.Fatalf("wrote %v in %d attempts; the file is not the result", res.Wrote, res.Attempts)
			}
			if got := fileMode(t, path); got != mode {
				t.Fatalf("mode %v after the write, want %v", got, mode)
			}
			if os.SameFile(statOf(t, path), was) {
				t.Fatal("the file was rewritten in place, not replaced by rename")
			}
			onlyFiles(t, dir, "aot-loop-state.md")

			// The directory saw the temp file created next to the target
			// and renamed onto it.
			tempRE := regexp.MustCompile(`^\.aot-loop-state\.md\.aot-tui-`)
			var created, renamed bool
			deadline := time.After(10 * time.Second) // liveness only
			for !created || !renamed {
				select {
				case ev := <-w.Events:
					name := filepath.Base(ev.Name)
					if filepath.Dir(ev.Name) != dir {
						t.Fatalf("event outside the directory: %v", ev)
					}
					switch {
					case tempRE.MatchString(name) && ev.Has(fsnotify.Create):
						created = true
					case tempRE.MatchString(name) && ev.Has(fsnotify.Rename):
						renamed = created
					}
				case err := <-w.Errors:
					t.Fatal(err)
				case <-deadline:
					t.Fatalf("saw temp file created %v, renamed %v", created, renamed)
				}
			}
		})
	}
}

func TestUpdateLeavesNoTempFile(t *testing.T) {
	t.Run("success", func(t *testing.T) {
		path, _ := stateFile(t, 0o644)
		if _, err := Update(path, UpdateOptions{}, planOf(addAtom)); err != nil {
			t.Fatal(err)
		}
		onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
	})
	t.Run("refusal", func(t *testing.T) {
		path, before := stateFile(t, 0o644)
		res, err := Update(path, UpdateOptions{}, planOf(model.DeleteAtom{ID: "A1"}))
		var ref *model.Refusal
		if !errors.As(err, &ref) || ref.Rule != model.RuleResolved || res.Wrote || res.Attempts != 1 {
			t.Fatalf("err %v, wrote %v; want the planner's refusal", err, res.Wrote)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
			t.Fatal("a refused correction changed the file")
		}
		onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
	})
	t.Run("conflict", func(t *testing.T) {
		// Another writer changes the file between every read and rename.
		path, _ := stateFile(t, 0o644)
		var last []byte
		plans := 0
		res, err := Update(path, UpdateOptions{Attempts: 3}, func(doc *Document) (*model.Plan, error) {
			plans++
			last = bumpIteration(t, path)
			return planOf(addAtom)(doc)
		})
		if !errors.Is(err, ErrConflict) || res.Attempts != 3 || plans != 3 || res.Wrote {
			t.Fatalf("err %v after %d attempts (%d plans); want ErrConflict after 3", err, res.Attempts, plans)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, last) {
			t.Fatal("the other writer's last version was overwritten")
		}
		onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
	})
	t.Run("failure after the temp file is written", func(t *testing.T) {
		// The file grows past the size limit before the re-read.
		path, before := stateFile(t, 0o644)
		grown := append(bytes.Clone(before), bytes.Repeat([]byte("padding\n"), 200)...)
		_, err := Update(path, UpdateOptions{MaxSize: int64(len(before) + 100)}, func(doc *Document) (*model.Plan, error) {
			if err := os.WriteFile(path, grown, 0o644); err != nil {
				t.Fatal(err)
			}
			return planOf(addAtom)(doc)
		})
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err %v, want ErrTooLarge from the re-read", err)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, grown) {
			t.Fatal("the file was written after a failed re-read")
		}
		onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
	})
	t.Run("target replaced by a directory", func(t *testing.T) {
		path, _ := stateFile(t, 0o644)
		_, err := Update(path, UpdateOptions{}, func(doc *Document) (*model.Plan, error) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
			return planOf(addAtom)(doc)
		})
		if err == nil {
			t.Fatal("Update wrote over a directory")
		}
		if fi, _ := os.Stat(path); !fi.IsDir() {
			t.Fatal("the directory was replaced")
		}
		onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
	})
	t.Run("edits that do not apply", func(t *testing.T) {
		path, before := stateFile(t, 0o644)
		_, err := Update(path, UpdateOptions{}, func(*Document) (*model.Plan, error) {
			return &model.Plan{Edits: []model.Edit{model.Replace(model.P("atoms", 99, "status"), "pending")}}, nil
		})
		var ee *EditError
		if !errors.As(err, &ee) {
			t.Fatalf("err %v, want an *EditError", err)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
			t.Fatal("the file changed")
		}
		onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
	})
}

// A write never starts from a stale read: when the file changes after the
// read, the correction is planned again on the new bytes and both changes
// are in the result.
func TestUpdateReplansOnWhatTheOtherWriterWrote(t *testing.T) {
	path, before := stateFile(t, 0o644)
	plans := 0
	res, err := Update(path, UpdateOptions{}, func(doc *Document) (*model.Plan, error) {
		plans++
		if plans <= 2 {
			bumpIteration(t, path)
		}
		return planOf(addAtom)(doc)
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 3 || plans != 3 {
		t.Fatalf("%d attempts, %d plans; want the third to succeed", res.Attempts, plans)
	}
	doc, err := Load(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if doc.State.Control.Iteration != 9 {
		t.Fatalf("iteration %d: the other writer's two bumps (7 → 9) were lost", doc.State.Control.Iteration)
	}
	if a, ok := doc.State.Atom("A9"); !ok || a.Description != "Write the runbook" {
		t.Fatal("the correction is missing")
	}
	if !bytes.Equal(res.Before, bytes.Replace(before, []byte("iteration: 7"), []byte("iteration: 9"), 1)) {
		t.Fatal("the final plan was not made on the other writer's bytes")
	}
}

// The loop's scripts truncate and rewrite the file in place; a read during
// their write sees it empty, cut short or torn. What is planned on such
// bytes — a parse error, a refusal — is stale once the file moves on.
func TestUpdateReadsThroughAWriteInProgress(t *testing.T) {
	t.Run("a refusal on bytes the file no longer holds", func(t *testing.T) {
		path, _ := stateFile(t, 0o644)
		plans := 0
		res, err := Update(path, UpdateOptions{}, func(doc *Document) (*model.Plan, error) {
			plans++
			if plans == 1 {
				bumpIteration(t, path) // the write finishes
				return nil, &model.Refusal{Rule: model.RuleFileProblems, Reason: "torn read"}
			}
			return planOf(addAtom)(doc)
		})
		if err != nil || res.Attempts != 2 || !res.Wrote {
			t.Fatalf("err %v after %d attempts; want the second plan written", err, res.Attempts)
		}
	})
	t.Run("a file read empty", func(t *testing.T) {
		path, _ := stateFile(t, 0o644)
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		plans := 0
		res, err := Update(path, UpdateOptions{Attempts: 3}, func(doc *Document) (*model.Plan, error) {
			plans++
			return planOf(addAtom)(doc)
		})
		// Still empty after every pause: not a write in progress after
		// all. The parse error is reported (not a conflict), and nothing
		// was planned or written.
		if _, ok := ParseError(err); !ok || errors.Is(err, ErrConflict) || res.Attempts != 3 || plans != 0 {
			t.Fatalf("err %v after %d attempts, %d plans; want the parse error after 3", err, res.Attempts, plans)
		}
		if got, _ := os.ReadFile(path); len(got) != 0 {
			t.Fatal("the file was written")
		}
	})
	t.Run("a file cut short", func(t *testing.T) {
		// A write that is late to finish looks like a broken file: it is
		// read again while attempts remain, then reported as it is.
		path, data := stateFile(t, 0o644)
		if err := os.WriteFile(path, data[:len(data)/2], 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := Update(path, UpdateOptions{}, planOf(addAtom))
		if _, ok := ParseError(err); !ok || errors.Is(err, ErrConflict) || res.Attempts != 5 {
			t.Fatalf("err %v after %d attempts; want the parse error after 5", err, res.Attempts)
		}
	})
	t.Run("a refusal on a file that stays put", func(t *testing.T) {
		path, _ := stateFile(t, 0o644)
		res, err := Update(path, UpdateOptions{}, planOf(model.DeleteAtom{ID: "A1"}))
		var ref *model.Refusal
		if !errors.As(err, &ref) || res.Attempts != 1 {
			t.Fatalf("err %v after %d attempts; want the refusal after 1", err, res.Attempts)
		}
	})
}

func TestUpdateThroughSymlink(t *testing.T) {
	path, _ := stateFile(t, 0o600)
	realDir := filepath.Dir(path)
	linkDir := t.TempDir()
	// link → link2 → the file, the first one relative.
	link2 := filepath.Join(linkDir, "second-link.md")
	if err := os.Symlink(path, link2); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(linkDir, "aot-loop-state.md")
	if err := os.Symlink("second-link.md", link); err != nil {
		t.Fatal(err)
	}
	res, err := Update(link, UpdateOptions{}, planOf(addAtom))
	if err != nil {
		t.Fatal(err)
	}
	for l, target := range map[string]string{link: "second-link.md", link2: path} {
		fi, err := os.Lstat(l)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a symlink", l)
		}
		if got, _ := os.Readlink(l); got != target {
			t.Fatalf("%s points to %s, want %s", l, got, target)
		}
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, res.After) {
		t.Fatal("the link's target was not written")
	}
	if fileMode(t, path) != 0o600 {
		t.Fatalf("the target's mode is %v", fileMode(t, path))
	}
	onlyFiles(t, realDir, "aot-loop-state.md")
	onlyFiles(t, linkDir, "aot-loop-state.md", "second-link.md")
}

func TestUpdateRefusesAnInvalidResult(t *testing.T) {
	for name, edits := range map[string][]model.Edit{
		"unknown status":       {model.Replace(model.P("control", "status"), "paused")},
		"dangling dependency":  {model.Append(model.P("atoms", 1, "depends_on"), "A99")},
		"cycle":                {model.Append(model.P("atoms", 0, "depends_on"), "A2")},
		"OR selection outside": {model.Replace(model.P("or_groups", "audit_store", "selected"), "A1")},
	} {
		t.Run(name, func(t *testing.T) {
			path, before := stateFile(t, 0o644)
			res, err := Update(path, UpdateOptions{}, func(*Document) (*model.Plan, error) { return &model.Plan{Edits: edits}, nil })
			var ref *model.Refusal
			if !errors.As(err, &ref) || ref.Rule != RuleStaysValid || !strings.Contains(err.Error(), "nothing was written") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err %v; want a one-line refusal", err)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, before) || res.Wrote {
				t.Fatal("an invalid result was written")
			}
			onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
		})
	}
	// Errors the file already had do not count against a correction, even
	// when the correction moves the lines they are reported on: one that
	// removes an error (max_iterations 0) is written although another one
	// (a duplicate id, below the lines it adds) stays.
	t.Run("existing errors", func(t *testing.T) {
		path, before := stateFile(t, 0o644)
		dup := bytes.Replace(before, []byte("  - id: A8\n"), []byte("  - id: A7\n"), 1)
		dup = bytes.Replace(dup, []byte("max_iterations: 20"), []byte("max_iterations: 0"), 1)
		if err := os.WriteFile(path, dup, 0o644); err != nil {
			t.Fatal(err)
		}
		doc, _ := Parse(dup)
		if v := model.Validate(doc.State); len(v.Errors) != 2 {
			t.Fatalf("fixture: want a duplicate id and max_iterations 0, got %v", v.Errors)
		}
		edits := []model.Edit{
			model.Replace(model.P("objective", "constraints", "max_iterations"), 30),
			model.Append(model.P("objective", "base_case", "checklist"), model.Map{{Key: "item", Value: "Lint"},
				{Key: "check", Value: model.Map{{Key: "type", Value: "command"}, {Key: "value", Value: "golangci-lint run"}}}}),
		}
		res, err := Update(path, UpdateOptions{}, func(*Document) (*model.Plan, error) { return &model.Plan{Edits: edits}, nil })
		if err != nil {
			t.Fatal(err)
		}
		if v := model.Validate(res.NewDoc.State); len(v.Errors) != 1 || !strings.Contains(v.Errors[0], "duplicate atom id A7") {
			t.Fatalf("errors after %v; want the duplicate id alone", v.Errors)
		}
	})
}

func TestUpdateDryRunWritesNothing(t *testing.T) {
	path, before := stateFile(t, 0o644)
	fi0, _ := os.Stat(path)
	res, err := Update(path, UpdateOptions{DryRun: true}, planOf(addAtom))
	if err != nil {
		t.Fatal(err)
	}
	if res.Wrote || !bytes.Contains(res.After, []byte("Write the runbook")) || res.NewDoc == nil {
		t.Fatal("a dry run should compute the result without writing it")
	}
	fi1, _ := os.Stat(path)
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) || !fi1.ModTime().Equal(fi0.ModTime()) || !os.SameFile(fi1, fi0) {
		t.Fatal("a dry run touched the file")
	}
	onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
}

func TestUpdateExpect(t *testing.T) {
	path, before := stateFile(t, 0o644)
	changed := bumpIteration(t, path)
	res, err := Update(path, UpdateOptions{Expect: before}, planOf(addAtom))
	if !errors.Is(err, ErrStale) || res.Wrote {
		t.Fatalf("err %v; want ErrStale", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, changed) {
		t.Fatal("a stale correction was written")
	}
	if _, err := Update(path, UpdateOptions{Expect: changed}, planOf(addAtom)); err != nil {
		t.Fatalf("with the current bytes expected: %v", err)
	}
	onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
}

// Installing hears the bytes of a write before the file holds them, and
// they are the bytes the file then holds: a watcher that reports them an
// instant later can tell they are the caller's own.
func TestInstallingHearsTheBytesBeforeTheFileHoldsThem(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		path, before := stateFile(t, 0o644)
		var heard [][]byte
		res, err := Update(path, UpdateOptions{Installing: func(data []byte) {
			if now, _ := os.ReadFile(path); !bytes.Equal(now, before) {
				t.Error("Installing was called after the file changed")
			}
			heard = append(heard, data)
		}}, planOf(addAtom))
		if err != nil {
			t.Fatal(err)
		}
		after, _ := os.ReadFile(path)
		if len(heard) != 1 || !bytes.Equal(heard[0], after) || !bytes.Equal(res.After, after) {
			t.Fatalf("heard %d writes; the last one is the file: %v", len(heard), len(heard) > 0 && bytes.Equal(heard[len(heard)-1], after))
		}
	})
}
