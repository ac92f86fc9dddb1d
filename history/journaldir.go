package history

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/aot-loop/aot-tui/internal/appfiles"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/aot-loop/aot-tui/statefile"
)

// Where journals live. A journal is aot-tui's record of what it saw, not
// part of the user's project: it is kept in the user's state directory
// (DefaultJournalDir), one file per state file, named so that a person can
// tell whose it is and two projects never share one (JournalIn). Journals
// that aot-tui versions before this one wrote beside the state file
// (JournalBeside) are still read, with the new ones (JournalsOf,
// ReadJournals); they are never moved or written again.

// DefaultJournalDir is the directory the journals are kept in unless the
// user chooses another (--journal-dir): on every system
// $XDG_STATE_HOME/aot-tui/journals when XDG_STATE_HOME is set (an absolute
// path, as the XDG spec asks); else on Windows
// %LocalAppData%\aot-tui\journals, and elsewhere — macOS included —
// ~/.local/state/aot-tui/journals, beside aot-tui's keys file in
// ~/.config/aot-tui. The error says which variable to set when none is.
func DefaultJournalDir() (string, error) {
	return journalDirFor(runtime.GOOS, os.Getenv)
}

// journalDirFor is DefaultJournalDir on the system goos with the
// environment getenv: the choice per system, testable on any.
func journalDirFor(goos string, getenv func(string) string) (string, error) {
	return stateDirFor(goos, getenv, "journals", "the journals", " (--journal-dir DIR chooses one)")
}

// DefaultStateDir is the directory name in aot-tui's part of the user's
// state directory, chosen per system as DefaultJournalDir's ("journals")
// is: $XDG_STATE_HOME/aot-tui/NAME, %LocalAppData%\aot-tui\NAME on
// Windows, ~/.local/state/aot-tui/NAME elsewhere. what names its use in
// the error that says which variable to set ("the hook events").
func DefaultStateDir(name, what string) (string, error) {
	return stateDirFor(runtime.GOOS, os.Getenv, name, what, "")
}

func stateDirFor(goos string, getenv func(string) string, name, what, hint string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "aot-tui", name), nil
	}
	switch goos {
	case "windows":
		if d := getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "aot-tui", name), nil
		}
		return "", errors.New("no directory for " + what + ": %LocalAppData% is not set" + hint)
	case "plan9":
		if d := getenv("home"); d != "" {
			return filepath.Join(d, ".local", "state", "aot-tui", name), nil
		}
		return "", errors.New("no directory for " + what + ": $home is not set" + hint)
	}
	if d := getenv("HOME"); d != "" {
		return filepath.Join(d, ".local", "state", "aot-tui", name), nil
	}
	return "", errors.New("no directory for " + what + ": neither $XDG_STATE_HOME nor $HOME is set" + hint)
}

// JournalIn is the journal of the state file at statePath in the directory
// dir: named after the project and the file, for a person to find, with a
// short hash of the file's absolute path so that two projects of the same
// name never share one —
// ~/.local/state/aot-tui/journals/shop-aot-loop-state-3f9a0c21be47.history.jsonl.
// The path is made absolute with its directory's symbolic links resolved
// (when it exists), so that a project reached by two spellings has one
// journal; on Windows, where names do not differ by case, it is taken in
// lower case.
func JournalIn(dir, statePath string) string {
	return journalIn(dir, statePath, runtime.GOOS)
}

func journalIn(dir, statePath, goos string) string {
	abs, err := filepath.Abs(statePath)
	if err != nil {
		abs = filepath.Clean(statePath)
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(real, filepath.Base(abs))
	}
	if goos == "windows" {
		abs = strings.ToLower(abs)
	}
	h := sha256.Sum256([]byte(abs))
	project := filepath.Base(statefile.ProjectDir(abs))
	base := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	name := appfiles.ReadableName(project) + "-" + appfiles.ReadableName(base) + "-" + hex.EncodeToString(h[:6]) + journalSuffix
	return filepath.Join(dir, name)
}

const journalSuffix = ".history.jsonl"

// JournalBeside is where aot-tui versions before the state directory kept
// the journal of the state file at statePath, and where the demo keeps its
// own: beside it, named after it (.claude/aot-loop-state.md →
// .claude/aot-loop-state.history.jsonl).
func JournalBeside(statePath string) string {
	dir, base := filepath.Split(statePath)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	return filepath.Join(dir, base+journalSuffix)
}

// StatePath is JournalBeside the other way: the state file a journal (or
// the JOURNAL.1 it rotated out) was recorded beside. A journal in the
// state directory (JournalIn) names no file it can be traced back to.
func StatePath(journal string) string {
	journal = strings.TrimSuffix(journal, ".1")
	return strings.TrimSuffix(journal, journalSuffix) + ".md"
}

// JournalsOf are the journals of the state file at statePath that readers
// look at: the one in dir (none when dir is ""), then the one beside the
// file an older aot-tui wrote.
func JournalsOf(dir, statePath string) []string {
	var out []string
	if dir != "" {
		out = append(out, JournalIn(dir, statePath))
	}
	return append(out, JournalBeside(statePath))
}

// ReadJournals reads the journals at paths (each with the one it rotated
// out, ReadJournalAll) as one history: their versions in time order, a
// version equal to the one before it not repeated, and the notes of each.
// A journal that is not there is skipped; when none is, the error wraps
// fs.ErrNotExist.
func ReadJournals(paths []string) ([]Version, []string, error) {
	var all []Version
	var notes []string
	found := 0
	for i, p := range paths {
		if slices.Contains(paths[:i], p) {
			continue
		}
		vs, more, err := ReadJournalAll(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		found++
		all = append(all, vs...)
		notes = append(notes, more...)
	}
	if found == 0 {
		return nil, nil, fmt.Errorf("no journal at %s: %w", strings.Join(paths, " or "), fs.ErrNotExist)
	}
	if found > 1 {
		slices.SortStableFunc(all, func(a, b Version) int { return a.At.Compare(b.At) })
	}
	out := all[:0]
	for _, v := range all {
		if len(out) > 0 && bytes.Equal(out[len(out)-1].Data, v.Data) {
			continue
		}
		out = append(out, v)
	}
	return out, notes, nil
}

// NewestJournal is the one of the journals at paths that was written
// last ("" when none is there): the one to read the latest versions from.
func NewestJournal(paths []string) string {
	best := ""
	var at int64
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if t := fi.ModTime().UnixNano(); best == "" || t > at {
			best, at = p, t
		}
	}
	return best
}
