package ui

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestEditorArgs(t *testing.T) {
	for _, tt := range []struct {
		editor string
		line   int
		want   string
	}{
		{"vim", 77, "vim +77 s.md"},
		{"nvim -p", 77, "nvim -p +77 s.md"},
		{"nano", 3, "nano +3 s.md"},
		{"emacs -nw", 12, "emacs -nw +12 s.md"},
		{"code", 77, "code --wait -g s.md:77"},
		{"code -w", 77, "code -w -g s.md:77"},
		{"/usr/local/bin/subl", 5, "/usr/local/bin/subl --wait s.md:5"},
		{"hx", 9, "hx s.md:9"},
		{"notepad", 9, "notepad s.md"},
		{"vim", 0, "vim s.md"}, // no atom selected: the top
	} {
		if got := strings.Join(editorArgs(strings.Fields(tt.editor), "s.md", tt.line), " "); got != tt.want {
			t.Errorf("%s at %d: %q, want %q", tt.editor, tt.line, got, tt.want)
		}
	}
}

func TestEditorFor(t *testing.T) {
	have := map[string]bool{"nvim": true, "nano": true, defaultEditor: true}
	look := func(c string) (string, error) {
		if have[c] {
			return "/bin/" + c, nil
		}
		return "", errors.New("not found")
	}
	for _, tt := range []struct {
		visual, editor string
		want           string
	}{
		{"nvim -p", "nano", "nvim -p"},
		{"", "nano", "nano"},
		{"missing", "nano", "nano"}, // a $VISUAL that is not there is skipped
		{"", "", defaultEditor},
	} {
		env := map[string]string{"VISUAL": tt.visual, "EDITOR": tt.editor}
		if got := strings.Join(editorFor(func(k string) string { return env[k] }, look), " "); got != tt.want {
			t.Errorf("VISUAL=%q EDITOR=%q: %q, want %q", tt.visual, tt.editor, got, tt.want)
		}
	}
	if got := editorFor(func(string) string { return "" }, func(string) (string, error) { return "", errors.New("none") }); got != nil {
		t.Errorf("no editor anywhere: %q", got)
	}
}

// E opens the person's editor at the selected atom's line, with the loop
// paused while it is open, and lets the loop go when it ends.
func TestEditorOpensAtTheAtomWithTheLoopPaused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake editor is a shell script")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "editor.log")
	script := filepath.Join(dir, "fake-editor")
	// It records how it was called and what the file said about the pause
	// while it was open.
	body := "#!/bin/sh\necho \"$@\" > " + log + "\nfor a; do f=$a; done\ngrep redirect_requested \"$f\" >> " + log + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VISUAL", script)
	f := startRedirectFlow(t)
	f.jump("A4")
	f.keys("E")
	f.waitFor("back from the editor")
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || !slices.Equal(strings.Fields(lines[0]), []string{"+77", f.path}) {
		t.Fatalf("the editor was called as %q, want +77 (A4's line) and the state file", lines)
	}
	if strings.TrimSpace(lines[1]) != "redirect_requested: true" {
		t.Fatalf("while the editor was open the file said %q: the loop was not paused", lines[1])
	}
	f.waitFile("let the loop go", flagIs("false"))
}
