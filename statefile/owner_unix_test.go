//go:build unix

package statefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func ownerOf(t *testing.T, path string) (uid, gid uint32) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return st.Uid, st.Gid
}

// Run as root (sudo) on a file its user owns, a correction used to leave a
// root-owned file, which the loop's next update_atom.py could not write.
// The rewritten file keeps the owner, group and mode of the file it
// replaces — also when a loop write is put back and planned on again.
func TestUpdateKeepsOwnerGroupAndMode(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root (these tests run as root in CI)")
	}
	bothWays(t, func(t *testing.T) {
		path, before := stateFile(t, 0o640)
		if err := os.Chown(path, 1234, 5678); err != nil {
			t.Fatal(err)
		}
		withHook(t, "checked", func() {
			loopWrites[0].write(t, path, withBinding(before, "W14"))
		})
		if _, err := Update(path, UpdateOptions{Carried: carriedRunbook}, planOf(addAtom)); err != nil {
			t.Fatal(err)
		}
		st := readState(t, path)
		if _, ok := st.Binding("W14"); !ok || !hasCorrection(st, "Write the runbook") {
			t.Fatal("the loop's write or the correction is missing")
		}
		if uid, gid := ownerOf(t, path); uid != 1234 || gid != 5678 || fileMode(t, path) != 0o640 {
			t.Fatalf("owner %d:%d mode %v after the write; want 1234:5678 -rw-r-----", uid, gid, fileMode(t, path))
		}
		onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
	})
}

// A user who is not root cannot give a file to another user: a file owned
// by someone else is refused before anything is written (the rewrite
// would take it from its owner), and the TUI's Writable says so too. (The
// CLI test runs the binary as such a user; here the process pretends.)
func TestUpdateRefusesAFileItCannotKeepTheOwnerOf(t *testing.T) {
	path, before := stateFile(t, 0o666)
	uid, _ := ownerOf(t, path)
	defer func(f func() int) { geteuid = f }(geteuid)
	geteuid = func() int { return int(uid) + 4321 }
	_, err := Update(path, UpdateOptions{}, planOf(addAtom))
	var nw *NotWritableError
	if !errors.As(err, &nw) || !strings.Contains(err.Error(), "is owned by ") || !strings.Contains(err.Error(), "which may not give the rewritten file that owner: nothing was written; run aot-tui as ") {
		t.Fatalf("err %v; want the owner refusal", err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, before) {
		t.Fatal("the file changed")
	}
	onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
	if err := Writable(path); err == nil || !strings.Contains(err.Error(), "is owned by ") {
		t.Fatalf("Writable: %v; want the owner refusal", err)
	}
}

// A loop write kept beside the file (the last resort, when it cannot be
// merged) goes to the state file's owner too, who can then read it.
func TestKeptWriteGoesToTheFilesOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root (these tests run as root in CI)")
	}
	path, _ := stateFile(t, 0o644)
	if err := os.Chown(path, 1234, 5678); err != nil {
		t.Fatal(err)
	}
	res, err := Update(path, UpdateOptions{}, planOf(addAtom))
	if err != nil {
		t.Fatal(err)
	}
	theirs := []byte("---\ncontrol: [unclosed\n---\n")
	if _, err := Merge(path, res.Before, theirs, MergeOptions{}); !errors.Is(err, ErrConflict) {
		t.Fatalf("err %v; want the write kept", err)
	}
	kept, _ := filepath.Glob(path + ".aot-tui-kept-*")
	if len(kept) != 1 {
		t.Fatalf("kept %v", kept)
	}
	if uid, gid := ownerOf(t, kept[0]); uid != 1234 || gid != 5678 {
		t.Fatalf("the kept file is owned by %d:%d; want 1234:5678", uid, gid)
	}
}

// A group the rewritten file could not be given (the user is not in it, and
// a new file in the directory would not get it) is refused by Writable —
// the TUI turns its write keys off — as Update refuses it: the two decide
// alike. (As root the test can make such a file; the process pretends to
// be its owner, in a group of its own.)
func TestWritableRefusesAGroupUpdateCannotKeep(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making a file of another user and group needs root (these tests run as root in CI)")
	}
	path, before := stateFile(t, 0o664)
	if err := os.Chown(path, 1234, 4321); err != nil {
		t.Fatal(err)
	}
	defer func(u, g func() int, gs func() ([]int, error)) { geteuid, getegid, getgroups = u, g, gs }(geteuid, getegid, getgroups)
	geteuid = func() int { return 1234 }
	getegid = func() int { return 1234 }
	getgroups = func() ([]int, error) { return []int{1234}, nil }
	err := Writable(path)
	if err == nil || !strings.Contains(err.Error(), "belongs to group gid 4321") {
		t.Fatalf("Writable: %v; want the group refusal", err)
	}
	_, err = Update(path, UpdateOptions{}, planOf(addAtom))
	if !errors.Is(err, ErrNotWritable) || !strings.Contains(err.Error(), "belongs to group gid 4321") {
		t.Fatalf("Update: %v; want the same refusal", err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, before) {
		t.Fatal("the file changed")
	}
	// A member of the group may.
	getgroups = func() ([]int, error) { return []int{1234, 4321}, nil }
	if err := Writable(path); err != nil {
		t.Fatalf("Writable for a member of the group: %v", err)
	}
}
