package statefile

import "testing"

func TestProjectDir(t *testing.T) {
	for in, want := range map[string]string{
		"/p/.claude/aot-loop-state.md": "/p",
		"/p/state.md":                  "/p",
		"/p/.claude/x/state.md":        "/p/.claude/x",
	} {
		if got := ProjectDir(in); got != want {
			t.Errorf("ProjectDir(%q) = %q, want %q", in, got, want)
		}
	}
}
