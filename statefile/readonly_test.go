package statefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A read-only file — no write bit for anyone — is refused before anything
// is written, by every writer alike and even for root (the person made it
// read-only on purpose): the CLI used to replace it, since a rename only
// needs the directory. The TUI's Writable agrees. A dry run still shows
// the correction.
func TestReadOnlyFileIsRefused(t *testing.T) {
	for _, mode := range []os.FileMode{0o444, 0o400, 0o555} {
		t.Run(mode.String(), func(t *testing.T) {
			path, before := stateFile(t, mode)
			t.Cleanup(func() { os.Chmod(path, 0o644) })
			res, err := Update(path, UpdateOptions{}, planOf(addAtom))
			var nw *NotWritableError
			if !errors.As(err, &nw) || !errors.Is(err, ErrNotWritable) || res.Wrote {
				t.Fatalf("err %v, wrote %v; want a NotWritableError", err, res != nil && res.Wrote)
			}
			want := path + " is read-only (mode " + octal(mode) + "): nothing was written; chmod u+w " + path + " to allow corrections"
			if err.Error() != want {
				t.Fatalf("message %q\nwant    %q", err, want)
			}
			if now, _ := os.ReadFile(path); !bytes.Equal(now, before) || fileMode(t, path) != mode {
				t.Fatal("the file changed")
			}
			onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")

			if err := Writable(path); err == nil || !strings.Contains(err.Error(), "is read-only (mode "+octal(mode)+"); chmod u+w") {
				t.Fatalf("Writable: %v; want the same refusal", err)
			}
			dry, err := Update(path, UpdateOptions{DryRun: true}, planOf(addAtom))
			if err != nil || !bytes.Contains(dry.After, []byte("Write the runbook")) {
				t.Fatalf("a dry run on a read-only file: %v", err)
			}
		})
	}
}

func octal(m os.FileMode) string {
	const digits = "01234567"
	p := uint32(m.Perm())
	return "0" + string([]byte{digits[p>>6&7], digits[p>>3&7], digits[p&7]})
}
