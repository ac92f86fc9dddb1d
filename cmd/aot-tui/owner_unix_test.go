//go:build unix

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("giving files to other users, and running aot-tui as one, needs root (these tests run as root in CI)")
	}
}

func ownerOf(t *testing.T, path string) (uid, gid uint32, mode os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return st.Uid, st.Gid, fi.Mode().Perm()
}

// Run as root (sudo) on a file its user owns, a correction used to leave a
// root-owned file, and the loop's next update_atom.py failed with
// PermissionError. The file keeps its owner, group and mode.
func TestRedirectAsRootKeepsTheOwner(t *testing.T) {
	needRoot(t)
	path := loopFixture(t)
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 1234, 5678); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCmd(t, exec.Command(binary(t), "redirect", "add-atom", "Write the runbook", "--depends-on", "A1", "-f", path))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if data, _ := os.ReadFile(path); !bytes.Contains(data, []byte("Write the runbook")) {
		t.Fatal("the correction is not in the file")
	}
	if uid, gid, mode := ownerOf(t, path); uid != 1234 || gid != 5678 || mode != 0o640 {
		t.Fatalf("owner %d:%d mode %v after the write; want 1234:5678 -rw-r-----", uid, gid, mode)
	}
}

// A user who is not root cannot give a file to someone else: a file owned
// by another user (or by a group the user is not in) is refused — exit 2,
// one line naming the file, its owner and what to do — rather than taken
// from its owner; the file is left as it was. aot-tui runs here as uid
// 1234, a user without a name or groups.
func TestRedirectRefusesAFileItCannotKeepTheOwnerOf(t *testing.T) {
	needRoot(t)
	// A project everyone may write, reached through directories everyone
	// may enter, and the binary where uid 1234 can run it.
	base := t.TempDir()
	for d := base; d != filepath.Dir(os.TempDir()) && d != "/"; d = filepath.Dir(d) {
		if strings.HasPrefix(d, os.TempDir()+string(filepath.Separator)) {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	bin := filepath.Join(base, "aot-tui")
	copyFile(t, binary(t), bin, 0o755)
	for _, c := range []struct {
		name     string
		uid, gid int
		refusal  string // "": written
	}{
		{"another user's file", 4321, 4321, "is owned by uid 4321, and aot-tui runs as uid 1234, which may not give the rewritten file that owner: nothing was written; run aot-tui as uid 4321, or chown the file to uid 1234"},
		{"a group it is not in", 1234, 4321, "belongs to group gid 4321, and aot-tui runs as uid 1234, which may not give the rewritten file that group: nothing was written; run aot-tui as a member of gid 4321, or chgrp the file"},
		{"its own file", 1234, 1234, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(base, strings.ReplaceAll(c.name, " ", "-"), ".claude")
			if err := os.MkdirAll(dir, 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, 0o777); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "aot-loop-state.md")
			copyFile(t, loopFixture(t), path, 0o666)
			if err := os.Chown(path, c.uid, c.gid); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(path)
			cmd := exec.Command(bin, "redirect", "add-atom", "Write the runbook", "--depends-on", "A1", "-f", path)
			cmd.Env = append(os.Environ(), "HOME="+base)
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 1234, Gid: 1234, Groups: []uint32{}}}
			code, _, errOut := runCmd(t, cmd)
			uid, gid, mode := ownerOf(t, path)
			if c.refusal == "" {
				if code != exitOK || uid != 1234 || gid != 1234 || mode != 0o666 {
					t.Fatalf("exit %d (%s); owner %d:%d mode %v", code, errOut, uid, gid, mode)
				}
				return
			}
			if want := "aot-tui: " + path + " " + c.refusal + "\n"; code != exitUsage || errOut != want {
				t.Fatalf("exit %d, stderr %q\nwant exit 2, %q", code, errOut, want)
			}
			if now, _ := os.ReadFile(path); !bytes.Equal(now, before) || uid != uint32(c.uid) || gid != uint32(c.gid) || mode != 0o666 {
				t.Fatalf("the file changed (owner %d:%d, mode %v)", uid, gid, mode)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Fatalf("files left: %v", entries)
			}
		})
	}
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(to, mode); err != nil {
		t.Fatal(err)
	}
}
