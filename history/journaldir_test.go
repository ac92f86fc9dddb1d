package history

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The journal directory per system: XDG_STATE_HOME first everywhere (an
// absolute one), then %LocalAppData% on Windows, ~/.local/state on every
// other system (macOS included); with none of them a one-line error that
// says what to set.
func TestJournalDirForEachSystem(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		name, goos string
		getenv     func(string) string
		want, err  string
	}{
		{"linux, XDG", "linux", env("XDG_STATE_HOME", "/xdg", "HOME", "/home/u"), filepath.Join("/xdg", "aot-tui", "journals"), ""},
		{"linux, HOME", "linux", env("HOME", "/home/u"), filepath.Join("/home/u", ".local", "state", "aot-tui", "journals"), ""},
		{"linux, relative XDG is ignored", "linux", env("XDG_STATE_HOME", "rel", "HOME", "/home/u"), filepath.Join("/home/u", ".local", "state", "aot-tui", "journals"), ""},
		{"linux, nothing", "linux", env(), "", "neither $XDG_STATE_HOME nor $HOME is set (--journal-dir DIR chooses one)"},
		{"darwin, HOME", "darwin", env("HOME", "/Users/u"), filepath.Join("/Users/u", ".local", "state", "aot-tui", "journals"), ""},
		{"darwin, XDG", "darwin", env("XDG_STATE_HOME", "/xdg", "HOME", "/Users/u"), filepath.Join("/xdg", "aot-tui", "journals"), ""},
		{"freebsd, HOME", "freebsd", env("HOME", "/home/u"), filepath.Join("/home/u", ".local", "state", "aot-tui", "journals"), ""},
		{"windows, LocalAppData", "windows", env("LocalAppData", "/lad", "HOME", "/home/u"), filepath.Join("/lad", "aot-tui", "journals"), ""},
		{"windows, XDG first", "windows", env("XDG_STATE_HOME", "/xdg", "LocalAppData", "/lad"), filepath.Join("/xdg", "aot-tui", "journals"), ""},
		{"windows, nothing", "windows", env("HOME", "/home/u"), "", "%LocalAppData% is not set"},
		{"plan9", "plan9", env("home", "/usr/u"), filepath.Join("/usr/u", ".local", "state", "aot-tui", "journals"), ""},
	} {
		got, err := journalDirFor(c.goos, c.getenv)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: got %q, %v; want the error %q", c.name, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

// The real environment goes through the same rule: the tests set it.
func TestDefaultJournalDirReadsTheEnvironment(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_STATE_HOME", xdg)
	if got, err := DefaultJournalDir(); err != nil || got != filepath.Join(xdg, "aot-tui", "journals") {
		t.Fatalf("with XDG_STATE_HOME: %q %v", got, err)
	}
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		return
	}
	home := t.TempDir()
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", home)
	if got, err := DefaultJournalDir(); err != nil || got != filepath.Join(home, ".local", "state", "aot-tui", "journals") {
		t.Fatalf("with HOME alone: %q %v", got, err)
	}
}

// A journal's name says whose it is (project, file) and carries a hash
// of the file's absolute path: the same file has one name however it is
// spelled (relative, through a symbolic link), two projects of the same
// name have two, and nothing of the name can step out of the directory.
func TestJournalInNamesTheProjectAndTellsProjectsApart(t *testing.T) {
	dir := t.TempDir()
	root := t.TempDir()
	a := filepath.Join(root, "one", "shop", ".claude", "aot-loop-state.md")
	b := filepath.Join(root, "two", "shop", ".claude", "aot-loop-state.md")
	for _, p := range []string{a, b} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ja, jb := JournalIn(dir, a), JournalIn(dir, b)
	if filepath.Dir(ja) != dir || !strings.HasPrefix(filepath.Base(ja), "shop-aot-loop-state-") || !strings.HasSuffix(ja, ".history.jsonl") {
		t.Fatalf("the name is not readable: %s", ja)
	}
	if ja == jb {
		t.Fatalf("two projects share %s", ja)
	}
	if len(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(ja), "shop-aot-loop-state-"), ".history.jsonl")) != 12 {
		t.Fatalf("no 12-digit hash in %s", ja)
	}
	// Relative, and through a link to the project.
	t.Chdir(filepath.Join(root, "one"))
	if got := JournalIn(dir, filepath.Join("shop", ".claude", "aot-loop-state.md")); got != ja {
		t.Fatalf("relative path: %s, want %s", got, ja)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(filepath.Join(root, "one", "shop"), link); err == nil {
		if got := JournalIn(dir, filepath.Join(link, ".claude", "aot-loop-state.md")); got != ja {
			t.Fatalf("through a link: %s, want %s", got, ja)
		}
	}
	// A project name no file system takes as it is.
	odd := filepath.Join(root, "we:ird *name\x1b]0;x\a", "aot-loop-state.md")
	name := filepath.Base(JournalIn(dir, odd))
	if strings.ContainsAny(name, ":* \x1b\a/\\") || strings.HasPrefix(name, ".") {
		t.Fatalf("an odd project name was kept as it is: %q", name)
	}
	if got := filepath.Base(JournalIn(dir, filepath.Join(root, "..hidden", "s.md"))); strings.HasPrefix(got, ".") {
		t.Fatalf("a hidden journal: %q", got)
	}
	// Windows compares names without case.
	if journalIn(dir, a, "windows") != journalIn(dir, strings.ToUpper(a), "windows") {
		t.Fatal("on Windows the case of the path made two journals")
	}
}

// Opening a journal makes its directory, the user's alone.
func TestOpenJournalMakesItsDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "aot-tui", "journals")
	j, err := OpenJournal(filepath.Join(dir, "x.history.jsonl"), JournalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.Append(Version{At: time.Now(), Data: []byte("a\n")}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
		t.Fatalf("the journal directory is %v, want 0700", fi.Mode().Perm())
	}
}

// The journal beside the file (an older aot-tui's) and the one in the
// state directory are read as one history, in time order, a version both
// hold once; either alone is read; neither is fs.ErrNotExist.
func TestReadJournalsMergesTheOldAndTheNewLocation(t *testing.T) {
	root := t.TempDir()
	state := filepath.Join(root, "p", ".claude", "aot-loop-state.md")
	os.MkdirAll(filepath.Dir(state), 0o755)
	paths := JournalsOf(filepath.Join(root, "state"), state)
	if len(paths) != 2 || paths[1] != JournalBeside(state) {
		t.Fatalf("JournalsOf: %v", paths)
	}
	if _, _, err := ReadJournals(paths); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("no journal: %v", err)
	}
	t0 := time.Date(2026, 11, 24, 14, 0, 0, 0, time.UTC)
	write := func(path string, vs ...Version) {
		j, err := OpenJournal(path, JournalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			if _, err := j.Append(v); err != nil {
				t.Fatal(err)
			}
		}
		j.Close()
	}
	write(paths[1], Version{At: t0, Data: []byte("v1\n")}, Version{At: t0.Add(time.Minute), Data: []byte("v2\n")})
	got, _, err := ReadJournals(paths)
	if err != nil || len(got) != 2 {
		t.Fatalf("the old journal alone: %d versions, %v", len(got), err)
	}
	write(paths[0], Version{At: t0.Add(time.Minute), Data: []byte("v2\n")}, Version{At: t0.Add(2 * time.Minute), Data: []byte("v3\n")})
	got, notes, err := ReadJournals(paths)
	if err != nil || len(notes) > 0 {
		t.Fatal(err, notes)
	}
	var texts []string
	for _, v := range got {
		texts = append(texts, strings.TrimSpace(string(v.Data)))
	}
	if strings.Join(texts, " ") != "v1 v2 v3" {
		t.Fatalf("merged: %v", texts)
	}
	if NewestJournal(paths) == "" {
		t.Fatal("no newest journal")
	}
	os.Remove(paths[1])
	if got, _, err := ReadJournals(paths); err != nil || len(got) != 2 {
		t.Fatalf("the new journal alone: %d versions, %v", len(got), err)
	}
	if NewestJournal(paths) != paths[0] {
		t.Fatalf("newest: %q", NewestJournal(paths))
	}
}

// NewestJournal picks the journal written last.
func TestNewestJournalIsTheOneWrittenLast(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	os.WriteFile(a, []byte("x\n"), 0o644)
	os.WriteFile(b, []byte("x\n"), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(a, old, old)
	if got := NewestJournal([]string{a, b}); got != b {
		t.Fatalf("newest of a (an hour old) and b: %q", got)
	}
	os.Chtimes(b, old.Add(-time.Hour), old.Add(-time.Hour))
	if got := NewestJournal([]string{a, b}); got != a {
		t.Fatalf("newest once b is older: %q", got)
	}
	if got := NewestJournal([]string{filepath.Join(dir, "none")}); got != "" {
		t.Fatalf("no journal: %q", got)
	}
}

// A journal names the state file it records (absolute) in its full
// records, so that a journal in the state directory says whose it is;
// every version read back carries it, diffs included.
func TestJournalNamesItsStateFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	path := filepath.Join(dir, "j.history.jsonl")
	j, err := OpenJournal(path, JournalOptions{StateFile: filepath.Join("p", ".claude", "aot-loop-state.md")})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("a line that stays the same\n", 50)
	for _, v := range []string{long + "c\n", long + "d\n"} {
		if _, err := j.Append(Version{At: time.Now(), Data: []byte(v)}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	got, notes, err := ReadJournal(path)
	if err != nil || len(notes) > 0 || len(got) != 2 {
		t.Fatal(len(got), err, notes)
	}
	want := filepath.Join(dir, "p", ".claude", "aot-loop-state.md")
	for i, v := range got {
		if v.File != want {
			t.Errorf("version %d is of %q, want %q", i+1, v.File, want)
		}
	}
	data, _ := os.ReadFile(path)
	if strings.Count(string(data), `"file":`) != 1 {
		t.Fatalf("the file is named in every record, not the full ones:\n%s", data)
	}
}
