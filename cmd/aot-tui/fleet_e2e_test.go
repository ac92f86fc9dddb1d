package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// lineOf is the pane's line that holds s ("" when none).
func lineOf(screen, s string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// aot-tui --scan DIR with the built binary: the table, its order and
// title; / filters; enter opens a loop in the normal views and esc comes
// back; projects appearing and going are picked up live.
func TestE2EFleetScan(t *testing.T) {
	bin := binary(t)
	root := scanTree(t)
	s := startTmux(t, 140, 36, []string{"NO_COLOR=1"}, bin, "--scan", root)
	screen := s.waitFor("aot-tui fleet │ 5 loops · 3 running · 3 need attention", "team/deep/x", "mobile")

	// Attention first: api (its stop hook will end it) and web (stall
	// 2/3), the more recent first, above broken (invalid) above the rest.
	lines := strings.Split(screen, "\n")
	pos := func(name string) int {
		for i, l := range lines {
			if strings.Contains(l, " "+name+" ") {
				return i
			}
		}
		t.Fatalf("%s is not in the table:\n%s", name, screen)
		return -1
	}
	if !(pos("api") < pos("web") && pos("web") < pos("broken") && pos("broken") < pos("mobile")) {
		t.Fatalf("the order should be api, web, broken, mobile:\n%s", screen)
	}
	if l := lineOf(screen, " api "); !strings.Contains(l, "⚠") {
		t.Fatalf("api's row: %q", l)
	}
	if l := lineOf(screen, " web "); !strings.Contains(l, "⚠") || !strings.Contains(l, "‖ paused") || !strings.Contains(l, "7/20") {
		t.Fatalf("web's row: %q", l)
	}
	if l := lineOf(screen, " mobile "); !strings.Contains(l, "▶ work") || !strings.Contains(l, "4/11 phases") {
		t.Fatalf("mobile's row: %q", l)
	}
	title := strings.TrimSpace(s.tmux("display-message", "-p", "-t", "e2e", "#{pane_title}"))
	if title != "aot-tui fleet: 5 loops · 3 running · 3 need attention" {
		t.Fatalf("window title %q", title)
	}

	// / filters the table; esc clears it.
	s.send("/")
	s.send("-l", "mob")
	s.send("Enter")
	screen = s.waitFor("filter: mob (1 of 5)")
	if strings.Contains(screen, " api ") {
		t.Fatalf("the filter should leave only mobile:\n%s", screen)
	}
	s.send("Escape")
	s.waitFor(" api ")

	// enter on api opens its loop; the views work; esc comes back.
	s.send("/")
	s.send("-l", "api")
	s.send("Enter")
	s.waitFor("filter: api (1 of 5)")
	s.send("Enter")
	s.waitFor("◂ fleet esc", "1/1 api ▶ running", "iteration 5/20", "1 Graph")
	s.send("3")
	s.waitFor("3 Trail")
	s.send("Escape")
	s.waitFor("aot-tui fleet │ 5 loops", "filter: api (1 of 5)")
	s.send("Escape")
	s.waitFor(" web ", " api ")

	// A new project appears; a removed one goes.
	data, err := os.ReadFile(testdata("seed-complete.md"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "newcomer/.claude/aot-loop-state.md", strings.Replace(string(data), "iteration: 5", "iteration: 6", 1))
	screen = s.waitFor("6 loops", " newcomer ")
	if l := lineOf(screen, " newcomer "); !strings.Contains(l, "6/20") {
		t.Fatalf("newcomer's row: %q", l)
	}
	if err := os.RemoveAll(filepath.Join(root, "mobile")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for strings.Contains(s.capture(), " mobile ") {
		if time.Now().After(deadline) {
			t.Fatalf("the removed project is still shown:\n%s", s.capture())
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.waitFor("5 loops")

	s.send("q")
	deadline = time.Now().Add(10 * time.Second)
	for strings.TrimSpace(s.tmux("display-message", "-p", "-t", "e2e", "#{pane_dead}")) != "1" {
		if time.Now().After(deadline) {
			t.Fatal("q did not quit the fleet table")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
