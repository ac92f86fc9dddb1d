package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"

	"github.com/aot-loop/aot-tui/ui/redirect"
)

func TestDefaultKeysDoNotConflict(t *testing.T) {
	k := DefaultKeyMap()
	if err := checkConflicts(&k, map[string]int{}); err != nil {
		t.Fatal(err)
	}
	if len(keyTable) != 76 {
		t.Fatalf("%d actions: a KeyMap binding is missing from keyTable (or one was added without it)", len(keyTable))
	}
	for name, b := range allBindings(k) {
		if len(b.Keys()) == 0 {
			t.Errorf("KeyMap.%s has no keys: declare it in keyTable", name)
		}
	}
}

func writeKeys(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "keys.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadKeyMap(t *testing.T) {
	k, err := LoadKeyMap(writeKeys(t, "# mine\nadd_atom: A\nquit: [q, ctrl+q]\napply: [enter, ctrl+s]\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	if !key.Matches(keyMsg("A"), k.AddAtom) || key.Matches(keyMsg("a"), k.AddAtom) || k.AddAtom.Help().Key != "A" {
		t.Fatal("add_atom was not rebound to A")
	}
	if k.AddAtom.Help().Desc != "add atom" || !key.Matches(keyMsg("ctrl+q"), k.Quit) {
		t.Fatal("the description or the second key is missing")
	}
	if !key.Matches(keyMsg("d"), k.DeleteAtom) {
		t.Fatal("an action the file does not name lost its default")
	}
	// A missing file that was not asked for is the defaults.
	if _, err := LoadKeyMap(filepath.Join(t.TempDir(), "none.yaml"), false); err != nil {
		t.Fatal(err)
	}
}

func TestLoadKeyMapErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"add_atom: A\nquitt: x\n", "line 2: unknown action \"quitt\""},
		{"add_atom: [A, ecs]\n", "line 1: add_atom: \"ecs\" is not a key"},
		{"add_atom: []\n", "line 1: add_atom: give at least one key"},
		{"add_atom: {x: 1}\n", "line 1: add_atom: give a key or a list"},
		{"add_atom: d\n", "line 1: d would be both add_atom and delete_atom in the graph view"},
		{"\nyes: q\n", "line 2: q would be both quit and yes in the stale-flag question"},
		{"add_atom: A\nadd_atom: B\n", "line 2: add_atom is set twice (also line 1)"},
		{"- a\n", "line 1: expected a mapping"},
		{"add_atom: [A\n", "fix the YAML"},
	} {
		path := writeKeys(t, c.text)
		_, err := LoadKeyMap(path, true)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "keys file "+path) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: err %v; want one line naming the file and %q", c.text, err, c.want)
		}
	}
	if _, err := LoadKeyMap(filepath.Join(t.TempDir(), "none.yaml"), true); err == nil {
		t.Error("a keys file asked for and missing is not an error")
	}
}

// A rebound key works in the TUI, in the view and in the redirect menu,
// and the old one no longer does.
func TestReboundKeysDriveTheTUI(t *testing.T) {
	k, err := LoadKeyMap(writeKeys(t, "add_atom: A\nredirect: R\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	m := loadedModel(t, "rich.md", 120, 40)
	m.keys = k
	m.keysByName = keysByName(&m.keys) // as New does with Options.Keys
	press(m, "a")
	if m.cur.topDialog() != nil {
		t.Fatal("the old key still opens the form")
	}
	press(m, "A")
	if !formOpen(m, redirect.AddAtom) {
		t.Fatalf("A did not open the add-atom form: %T", m.cur.topDialog())
	}
	press(m, "esc")
	press(m, "R")
	if !strings.Contains(screen(m), "A  add an atom") {
		t.Fatal("the menu does not show the rebound letter")
	}
	press(m, "A")
	if !formOpen(m, redirect.AddAtom) {
		t.Fatalf("A in the menu did not open the add-atom form: %T", m.cur.topDialog())
	}
}

// The default keys file (no --keys) that cannot be read says what to do
// with it, not to check a --keys path the person never gave.
func TestUnreadableDefaultKeysFileDoesNotBlameTheFlag(t *testing.T) {
	dir := t.TempDir() // a directory where the file should be: unreadable as a file
	_, err := LoadKeyMap(dir, false)
	if err == nil || strings.Contains(err.Error(), "--keys") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("err %v; want one naming the file, without --keys", err)
	}
	if _, err := LoadKeyMap(dir, true); err == nil || !strings.Contains(err.Error(), "--keys") {
		t.Fatalf("err %v; want the --keys hint when the flag named it", err)
	}
}
