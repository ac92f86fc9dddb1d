package history

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/internal/textsafe"
)

func appendAll(t *testing.T, path string, opts JournalOptions, versions [][]byte) {
	t.Helper()
	j, err := OpenJournal(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	t0 := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	for i, v := range versions {
		if _, err := j.Append(Version{At: t0.Add(time.Duration(i) * time.Second), Data: v}); err != nil {
			t.Fatal(err)
		}
	}
}

func sameVersions(t *testing.T, got []Version, want [][]byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d versions read back, %d written", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i].Data, want[i]) {
			t.Fatalf("version %d read back differs", i)
		}
	}
}

func TestJournalRoundTripWithDiffsAndFullRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	versions := evolve(50, 120, 1)
	appendAll(t, path, JournalOptions{FullEvery: 30}, versions)
	got, notes, err := ReadJournal(path)
	if err != nil || len(notes) > 0 {
		t.Fatal(err, notes)
	}
	sameVersions(t, got, versions)
	if !got[3].At.Equal(time.Date(2026, 5, 6, 7, 8, 12, 0, time.UTC)) {
		t.Fatalf("time of version 4: %v", got[3].At)
	}
	data, _ := os.ReadFile(path)
	full := strings.Count(string(data), `"full":`)
	if full < 4 || full > 6 {
		t.Fatalf("%d full records for 120 versions, one every 30 expected", full)
	}
	// Compact: mostly diffs.
	if len(data) > 10*len(versions[0]) {
		t.Fatalf("the journal is %d bytes for versions of %d", len(data), len(versions[0]))
	}
}

// A process that dies mid-write leaves a torn last line: reading ignores
// it, and the next append starts on a line of its own.
func TestJournalTornLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	versions := evolve(30, 10, 2)
	appendAll(t, path, JournalOptions{}, versions[:6])
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	last := lines[len(lines)-1]
	torn := strings.Join(lines[:len(lines)-1], "") + last[:len(last)/2]
	if err := os.WriteFile(path, []byte(torn), 0o644); err != nil {
		t.Fatal(err)
	}
	got, notes, err := ReadJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	sameVersions(t, got, versions[:5])
	if len(notes) != 1 || !strings.Contains(notes[0], "incomplete") {
		t.Fatalf("notes %q", notes)
	}
	// A new process appends after the torn line.
	appendAll(t, path, JournalOptions{}, versions[6:])
	got, notes, err = ReadJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	sameVersions(t, got, append(append([][]byte{}, versions[:5]...), versions[6:]...))
	if len(notes) != 1 || !strings.Contains(notes[0], "line 6") {
		t.Fatalf("notes %q: the torn record should be skipped as line 6", notes)
	}
}

// A damaged record in the middle loses it and the diffs after it, up to
// the next full record.
func TestJournalDamagedRecordSkipsToTheNextFull(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	versions := evolve(30, 20, 4)
	appendAll(t, path, JournalOptions{FullEvery: 10}, versions)
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	lines[4] = strings.Replace(lines[4], `"ops":[[`, `"ops":[[1`, 1)
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
	got, notes, _ := ReadJournal(path)
	sameVersions(t, got, append(append([][]byte{}, versions[:4]...), versions[10:]...))
	if len(notes) != 6 {
		t.Fatalf("notes %q", notes)
	}
}

func TestJournalRotatesAtItsCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	versions := evolve(40, 200, 6)
	max := int64(3 * len(versions[0]))
	appendAll(t, path, JournalOptions{MaxSize: max}, versions)
	for _, p := range []string{path, path + ".1"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > max {
			t.Fatalf("%s is %d bytes, over the cap of %d", p, st.Size(), max)
		}
	}
	got, notes, err := ReadJournalAll(path)
	if err != nil || len(notes) > 0 {
		t.Fatal(err, notes)
	}
	if len(got) == 0 || !bytes.Equal(got[len(got)-1].Data, versions[len(versions)-1]) {
		t.Fatal("the last version is not the last one read")
	}
	// What is left is a run of consecutive versions ending with the last.
	first := len(versions) - len(got)
	sameVersions(t, got, versions[first:])
}

// Two processes on the same loop see the same versions: each is recorded
// once, whoever gets there first.
func TestJournalSameVersionsFromTwoWritersRecordedOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	versions := evolve(30, 40, 8)
	a, _ := OpenJournal(path, JournalOptions{})
	b, _ := OpenJournal(path, JournalOptions{})
	defer a.Close()
	defer b.Close()
	// b runs ahead, a catches up, then they alternate.
	for _, v := range versions[:10] {
		b.Append(Version{Data: v})
	}
	for i, v := range versions[:30] {
		if wrote, _ := a.Append(Version{Data: v}); wrote != (i >= 10) {
			t.Fatalf("a wrote version %d: %v", i, wrote)
		}
		if i >= 10 {
			if wrote, _ := b.Append(Version{Data: v}); wrote {
				t.Fatalf("b wrote version %d again", i)
			}
		}
	}
	got, notes, _ := ReadJournal(path)
	if len(notes) > 0 {
		t.Fatal(notes)
	}
	sameVersions(t, got, versions[:30])
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != 30 {
		t.Fatalf("%d records for 30 versions", n)
	}
}

// The second process of TestJournalConcurrentProcesses: it appends its own
// versions to the journal named by the environment.
func TestJournalHelperProcess(t *testing.T) {
	path := os.Getenv("AOT_JOURNAL_HELPER")
	if path == "" {
		t.Skip("only run as the helper of TestJournalConcurrentProcesses")
	}
	appendMine(t, path, os.Getenv("AOT_JOURNAL_WHO"))
}

// mine are a writer's versions: the same big file with its own counter
// line, so that each is a diff against whatever was last in the journal,
// and every fifth padded past PIPE_BUF many times over.
func mine(who string) [][]byte {
	base := string(evolve(200, 1, 11)[0])
	var out [][]byte
	for i := 0; i < 60; i++ {
		v := base + fmt.Sprintf("# %s %d\n", who, i)
		if i%5 == 0 {
			v += strings.Repeat(fmt.Sprintf("# pad %s %d\n", who, i), 3000)
		}
		out = append(out, []byte(v))
	}
	return out
}

func appendMine(t *testing.T, path, who string) {
	j, err := OpenJournal(path, JournalOptions{FullEvery: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, v := range mine(who) {
		if _, err := j.Append(Version{At: time.Now(), Data: v}); err != nil {
			t.Fatal(err)
		}
	}
}

// Two processes append to one journal at once (the test binary runs
// itself as the second): every record of both is whole and in its
// writer's order, and every diff applies to the record before it.
func TestJournalConcurrentProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	cmd := exec.Command(os.Args[0], "-test.run=^TestJournalHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "AOT_JOURNAL_HELPER="+path, "AOT_JOURNAL_WHO=other")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	appendMine(t, path, "this")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the helper process: %v\n%s", err, out.String())
	}
	got, notes, err := ReadJournal(path)
	if err != nil || len(notes) > 0 {
		t.Fatalf("%v %q", err, notes)
	}
	seen := map[string][]int{}
	base := len(mine("x")[1]) - len("# x 1\n")
	for _, v := range got {
		f := strings.Fields(string(v.Data[base:]))
		n, _ := strconv.Atoi(f[2])
		seen[f[1]] = append(seen[f[1]], n)
	}
	for _, who := range []string{"this", "other"} {
		if len(seen[who]) != 60 {
			t.Fatalf("%s: %d of 60 versions in the journal", who, len(seen[who]))
		}
		for i, n := range seen[who] {
			if n != i {
				t.Fatalf("%s's versions out of order: %v", who, seen[who])
			}
		}
	}
	// The two interleaved: the lock, not luck, kept the diffs whole.
	switches := 0
	for i := 1; i < len(got); i++ {
		if strings.Contains(string(got[i].Data), "# this") != strings.Contains(string(got[i-1].Data), "# this") {
			switches++
		}
	}
	t.Logf("%d versions, the writer changed %d times", len(got), switches)
}

func TestStatePathUndoesJournalBeside(t *testing.T) {
	state := filepath.Join("p", ".claude", "aot-loop-state.md")
	j := JournalBeside(state)
	for _, in := range []string{j, j + ".1"} {
		if got := StatePath(in); got != state {
			t.Errorf("StatePath(%q) = %q, want %q", in, got, state)
		}
	}
}

// A diff record whose "n" is damaged (negative, or far too big) is
// skipped like any record that does not check out, not a crash of the
// reader or of the TUI following the journal.
func TestJournalDamagedLength(t *testing.T) {
	for _, n := range []string{"-5", "99999999999999"} {
		path := filepath.Join(t.TempDir(), "j.jsonl")
		versions := evolve(10, 3, 4)
		appendAll(t, path, JournalOptions{}, versions)
		data, _ := os.ReadFile(path)
		lines := strings.SplitAfter(string(data), "\n")
		if !strings.Contains(lines[1], `"ops":`) {
			t.Fatal("the second record is not a diff")
		}
		i := strings.Index(lines[1], `"n":`)
		j := strings.Index(lines[1][i:], ",")
		lines[1] = lines[1][:i] + `"n":` + n + lines[1][i+j:]
		os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
		got, notes, err := ReadJournal(path)
		if err != nil || len(got) != 1 || len(notes) != 2 {
			t.Fatalf("n %s: %d versions, notes %q, %v", n, len(got), notes, err)
		}
		// A process that had the journal open reads the records as
		// another process's news.
		follower := filepath.Join(t.TempDir(), "f.jsonl")
		jr, err := OpenJournal(follower, JournalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(follower, []byte(strings.Join(lines, "")), 0o644)
		if wrote, err := jr.Append(Version{Data: versions[2]}); err != nil || wrote {
			t.Fatalf("n %s: the last version recorded again (%v) or %v", n, wrote, err)
		}
		jr.Close()
	}
}

// The journal's lines carry no control or bidi character raw (a person
// may cat or tail it), and read back to the very bytes recorded: the \u
// escapes are JSON's, undone by the reader.
func TestJournalLinesEscapeControlAndBidiCharacters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	base := "---\ncontrol:\n  status: running\n---\n"
	versions := [][]byte{
		[]byte(base + "line one\n"),
		[]byte(base + "line one\nevil \u009b31m \u202eRLO\u202c \u2066iso\u2069 \u200f del\x7f esc\x1b]0;t\x07 \u0085\n"),
		[]byte(base + "line one\nevil \u009b31m \u202eRLO\u202c \u2066iso\u2069 \u200f del\x7f esc\x1b]0;t\x07 \u0085\nmore \u061c\n"),
	}
	appendAll(t, path, JournalOptions{}, versions)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range string(data) {
		if r != '\n' && textsafe.Unsafe(r) {
			t.Fatalf("%U raw in the journal at %d:\n%s", r, i, data)
		}
	}
	if !strings.Contains(string(data), `\u061c`) {
		t.Fatalf("the Arabic letter mark is not in the journal as an escape:\n%s", data)
	}
	got, notes, err := ReadJournal(path)
	if err != nil || len(notes) > 0 {
		t.Fatal(err, notes)
	}
	sameVersions(t, got, versions)
}
