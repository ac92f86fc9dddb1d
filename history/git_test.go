package history

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/internal/testenv"
	"github.com/aot-loop/aot-tui/sim"
)

func TestFromGit(t *testing.T) {
	testenv.Need(t, "git")
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	path := filepath.Join(dir, ".claude", "aot-loop-state.md")
	os.MkdirAll(filepath.Dir(path), 0o755)
	v1 := sim.DemoState
	v2 := strings.Replace(v1, "iteration: 0", "iteration: 1", 1)
	v3 := strings.Replace(v2, "stall_count: 0", "stall_count: 1", 1)
	for i, v := range []string{v1, v2, "---\nnot: [valid\n---\n", v3} {
		os.WriteFile(path, []byte(v), 0o644)
		os.WriteFile(filepath.Join(dir, "other"), []byte{byte(i)}, 0o644)
		git("add", "-A")
		git("commit", "-q", "-m", "step "+string(rune('1'+i)))
	}
	// A commit that does not touch the file is not a version.
	os.WriteFile(filepath.Join(dir, "other"), []byte("x"), 0o644)
	git("commit", "-qam", "unrelated")

	got, notes, err := FromGit(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !bytes.Equal(got[0].Data, []byte(v1)) || !bytes.Equal(got[1].Data, []byte(v2)) || !bytes.Equal(got[2].Data, []byte(v3)) {
		t.Fatalf("%d versions", len(got))
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "(step 3): does not parse") {
		t.Fatalf("notes %q", notes)
	}
	if got[0].At.IsZero() {
		t.Fatal("no commit time")
	}
	if _, _, err := FromGit(filepath.Join(dir, "untracked.md")); err == nil {
		t.Fatal("a file no commit touches is not an error")
	}
}
