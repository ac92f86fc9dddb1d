package history

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/statefile"
)

// goneState is a running loop at iteration it whose atoms are A1 (in
// progress, unless a1 says otherwise) and A2; a1 "" leaves A1 out. n
// makes each version's bytes differ.
func goneState(it int, a1 string, n int) []byte {
	atoms := ""
	if a1 != "" {
		atoms = fmt.Sprintf("  - id: A1\n    description: \"one\"\n    status: %s\n    depends_on: []\n", a1)
	}
	return fmt.Appendf(nil, `---
objective:
  goal: "g"
control:
  status: running
  iteration: %d
  stall_count: 0
  prev_pending_count: -1
  stop_requested: false
  stop_reason: null
  redirect_requested: false
atoms:
%s  - id: A2
    description: "two %d"
    status: pending
    depends_on: []
---
`, it, atoms, n)
}

func recordAll(t *testing.T, path string, opts JournalOptions, versions ...[]byte) {
	t.Helper()
	j, err := OpenJournal(JournalBeside(path), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range versions {
		if _, err := j.Append(Version{At: time.Now(), Data: v}); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

// goneIDs is what GoneFromJournal finds for the file cur, read as status
// reads a loop with a journal (statefile.LoadReparse: each version is
// parsed from cur entry by entry) and as Parse reads it (the first
// version is parsed whole): both must find the same.
func goneIDs(t *testing.T, path string, cur []byte) []string {
	t.Helper()
	var found [2][]string
	for k, read := range []func([]byte) (*statefile.Document, error){statefile.Parse, func(b []byte) (*statefile.Document, error) { return statefile.Reparse(nil, b) }} {
		doc, err := read(cur)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range GoneFromJournal(JournalBeside(path), doc) {
			found[k] = append(found[k], fmt.Sprintf("%s@%d", g.ID, g.Iteration))
		}
	}
	if fmt.Sprint(found[0]) != fmt.Sprint(found[1]) {
		t.Fatalf("from a parsed file gone %v, from a reparsed one %v", found[0], found[1])
	}
	return found[1]
}

// The journal's tail is read from its last full record (a long journal,
// full records every 5): A1, in progress, went during iteration 3 and two
// writes followed; status knows. Versions of earlier iterations do not
// count, nor does an atom in progress when its iteration ended.
func TestGoneFromJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aot-loop-state.md")
	var vs [][]byte
	for n := 0; n < 40; n++ {
		vs = append(vs, goneState(2, "pending", n))
	}
	vs = append(vs, goneState(3, "in_progress", 100), goneState(3, "", 101), goneState(3, "", 102))
	recordAll(t, path, JournalOptions{FullEvery: 5}, vs...)
	cur := goneState(3, "", 103)
	if got := goneIDs(t, path, cur); fmt.Sprint(got) != "[A1@3]" {
		t.Fatalf("gone %v, want [A1@3]", got)
	}
	// The next iteration: the coordinator that ran A1's worker has ended.
	if got := goneIDs(t, path, goneState(4, "", 104)); len(got) != 0 {
		t.Fatalf("gone %v in the next iteration", got)
	}
	// In progress at the end of iteration 2, gone at the turn: no worker.
	path2 := filepath.Join(t.TempDir(), "aot-loop-state.md")
	recordAll(t, path2, JournalOptions{}, goneState(2, "in_progress", 0))
	if got := goneIDs(t, path2, goneState(3, "", 1)); len(got) != 0 {
		t.Fatalf("gone %v across an iteration's turn", got)
	}
	// No journal: nothing to say.
	if got := goneIDs(t, filepath.Join(t.TempDir(), "x.md"), cur); len(got) != 0 {
		t.Fatalf("gone %v without a journal", got)
	}
}

// tailVersions returns the last versions whole and checked, skips a
// damaged record as ReadJournal does, and gives up past its budget.
func TestTailVersions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aot-loop-state.md")
	var vs [][]byte
	for n := 0; n < 23; n++ {
		vs = append(vs, goneState(1, "pending", n))
	}
	recordAll(t, path, JournalOptions{FullEvery: 10}, vs...)
	got := tailVersions(JournalBeside(path), 4)
	if len(got) != 4 {
		t.Fatalf("%d versions, want 4", len(got))
	}
	for i, v := range got {
		if !bytes.Equal(v, vs[19+i]) {
			t.Fatalf("version %d is not the journal's %d:\n%s", i, 19+i, v)
		}
	}
	// A record damaged in the middle of the tail: the versions built on
	// it fail their hash and are left out; those after the next full
	// record are whole again.
	data, err := os.ReadFile(JournalBeside(path))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(data, []byte("\n"))
	lines[19] = bytes.Replace(lines[19], []byte(`"two 19`), []byte(`"twx 19`), 1)
	if err := os.WriteFile(JournalBeside(path), bytes.Join(lines, []byte("\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	got = tailVersions(JournalBeside(path), 4)
	for _, v := range got {
		if bytes.Contains(v, []byte("twx")) {
			t.Fatalf("a damaged version came back:\n%s", v)
		}
		ok := false
		for _, w := range vs {
			ok = ok || bytes.Equal(v, w)
		}
		if !ok {
			t.Fatalf("a version the journal does not hold came back:\n%s", v)
		}
	}
	// Past the budget (a file this size times the records to rebuild).
	big := filepath.Join(t.TempDir(), "aot-loop-state.md")
	pad := bytes.Repeat([]byte("# padding padding padding padding padding padding\n"), tailBudget/50/10)
	var bigs [][]byte
	for n := 0; n < 15; n++ {
		bigs = append(bigs, append(goneState(1, "pending", n), pad...))
	}
	recordAll(t, big, JournalOptions{}, bigs...)
	if got := tailVersions(JournalBeside(big), 2); got != nil {
		t.Fatalf("%d versions rebuilt past the budget", len(got))
	}
}

// tailLines reads a journal from its end: what it returns are the file's
// last lines, whole, reaching back to a full record at least n lines from
// the end, whatever the block it began with cut through.
func TestTailLinesReadsBackToAFullRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	var all []string
	var b strings.Builder
	for i := range 3000 {
		line := fmt.Sprintf(`{"v":1,"n":%d,"base":"x","ops":["%s"]}`, i, strings.Repeat("y", i%300))
		if i%1000 == 0 {
			line = fmt.Sprintf(`{"v":1,"n":%d,"full":"%s"}`, i, strings.Repeat("z", 500))
		}
		all = append(all, line)
		b.WriteString(line + "\n")
	}
	b.WriteString(`{"v":1,"n":9,"torn`) // a torn last line
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 9, 1500, 2500, 5000} {
		lines := tailLines(path, n)
		first := len(all) - len(lines)
		for i, l := range lines {
			if string(l) != all[first+i] {
				t.Fatalf("n=%d: line %d is %.40q, want %.40q", n, i, l, all[first+i])
			}
		}
		// The full record the lines reach back to: the last one at least
		// n lines from the end, or the file's start.
		want := 0
		for i := len(all) - n; i >= 0; i-- {
			if i%1000 == 0 {
				want = i
				break
			}
		}
		if first > want {
			t.Errorf("n=%d: the lines begin at record %d, after the full record %d", n, first, want)
		}
		if got := recordSize(lines[len(lines)-1]); got != len(all)-1 {
			t.Errorf("n=%d: recordSize of the last line = %d, want %d", n, got, len(all)-1)
		}
	}
}

// A journal whose last line is torn and longer than the first block read
// from the end (a full record of a large loop, cut by a crash or caught
// while a TUI appends it): the torn line is left out, the lines before it
// are returned — status used to panic on it.
func TestTailLinesWithALongTornLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	var all []string
	var b strings.Builder
	for i := range 100 {
		line := fmt.Sprintf(`{"v":1,"n":%d,"base":"x","ops":["y"]}`, i)
		if i == 0 {
			line = `{"v":1,"n":0,"full":"z"}`
		}
		all = append(all, line)
		b.WriteString(line + "\n")
	}
	b.WriteString(`{"v":1,"n":100,"full":"` + strings.Repeat("z", 700<<10)) // torn: no end, no newline
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := tailLines(path, 9)
	if len(lines) != len(all) {
		t.Fatalf("%d lines, want the %d whole ones", len(lines), len(all))
	}
	for i, l := range lines {
		if string(l) != all[i] {
			t.Fatalf("line %d is %.40q, want %.40q", i, l, all[i])
		}
	}
	// And status's look at the journal does not fail on it.
	if v := tailVersions(path, 9); v != nil {
		t.Fatalf("tailVersions of lines that do not decode = %d versions, want none", len(v))
	}
}
