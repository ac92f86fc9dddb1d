package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKeysCommandAndFlag(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no default keys file
	code, out, errs := runCLI(t, "keys")
	if code != 0 || !strings.Contains(out, "add_atom") || !strings.Contains(out, "redirect menu") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("add_atom: A\n"), 0o644)
	if code, out, _ := runCLI(t, "keys", "--keys", good); code != 0 || !strings.Contains(out, "add_atom           A ") {
		t.Fatalf("exit %d: the rebound key is not listed:\n%s", code, out)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("add_atom: A\nundo: a\nadd_atomm: x\n"), 0o644)
	for _, args := range [][]string{{"keys", "--keys", bad}, {"--keys", bad, dir}, {"demo", "--keys", bad}} {
		code, _, errs := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(errs, "keys file "+bad+" line 3: unknown action") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
	// The default file is read when it exists.
	os.MkdirAll(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "aot-tui"), 0o755)
	os.WriteFile(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "aot-tui", "keys.yaml"), []byte("add_atom: X\n"), 0o644)
	if code, out, _ := runCLI(t, "keys"); code != 0 || !strings.Contains(out, "add_atom           X ") {
		t.Fatalf("exit %d: the default keys file was not read:\n%s", code, out)
	}
}
