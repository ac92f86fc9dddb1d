package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/statefile"
)

// Tests of words on screen that misled a new user (issue 23, items 6 and
// 14): each builds the screen on a variant of testdata/rich.md.

// richVariant is testdata/rich.md with its redirect flag clear and each
// old text replaced (once) by the new one.
func richVariant(t *testing.T, pairs ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "rich.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), "redirect_requested: true", "redirect_requested: false", 1)
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(text, pairs[i]) {
			t.Fatalf("rich.md has no %q", pairs[i])
		}
		text = strings.Replace(text, pairs[i], pairs[i+1], 1)
	}
	return text
}

// modelOnText is the TUI, sized w×h, on a state file holding text.
func modelOnText(t *testing.T, text string, w, h int) *Model {
	t.Helper()
	path := filepath.Join(t.TempDir(), "aot-loop-state.md")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return modelOn(t, path, w, h, false)
}

// screenLines is the screen's lines, without colours.
func screenLines(m *Model) []string { return strings.Split(screen(m), "\n") }

// The header's stall_count beside the outlook's prediction read as an
// off-by-one: the outlook says its count is the one after this iteration,
// whole at 60 columns.
func TestOutlookStallSaysAfterThisIteration(t *testing.T) {
	// Six unresolved, as at the last iteration: this one stalls.
	m := modelOnText(t, richVariant(t, "stall_count: 2", "stall_count: 1"), 60, 20)
	lines := screenLines(m)
	if !strings.Contains(lines[0], "stall 1/3") {
		t.Fatalf("header line 1 %q, want stall 1/3", lines[0])
	}
	if got := strings.TrimRight(lines[2], " "); got != "» stall 2/3 after this iteration; at 3/3 the loop stops" {
		t.Fatalf("outlook %q", got)
	}
}

// A stopped loop runs nothing next: the header names no next batch (nor
// atoms being worked on) beside its stop reason.
func TestStoppedLoopHasNoNext(t *testing.T) {
	running := screenLines(modelOnText(t, richVariant(t), 100, 30))
	if !strings.Contains(running[1], "next ▶ A5") {
		t.Fatalf("a running loop's header line 2 %q names no next batch", running[1])
	}
	for _, status := range []string{"stopped", "completed"} {
		m := modelOnText(t, richVariant(t, "  status: running", "  status: "+status, "stop_reason: null", `stop_reason: "out of budget"`), 100, 30)
		line := screenLines(m)[1]
		if strings.Contains(line, "next") || strings.Contains(line, "working on") {
			t.Errorf("a %s loop's header line 2 %q", status, line)
		}
	}
}

// A loop whose file is broken, opened from the fleet table, is labelled
// invalid in the bar above it (as its row says), not "… waiting".
func TestBrokenLoopFromTheFleetIsInvalid(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude", "aot-loop-state.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("---\nobjective: [\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := statefile.Load(path, 0)
	if err == nil {
		t.Fatal("the broken file parses")
	}
	row := fleet.Row{Path: path, Project: filepath.Dir(filepath.Dir(path)), Name: "broken", Kind: "aot-loop",
		File: fleet.FileInvalid, Error: err.Error(), Attention: fleet.AttentionInvalid, Reason: err.Error(), Changed: fixedNow}
	m := fleetModel(t, 100, 30, []fleet.Row{row})
	press(m, "enter")
	if m.fleetShown() || m.cur.target.Path != path {
		t.Fatal("enter did not open the broken loop")
	}
	m.Update(m.cur.envelope(stateMsg{ev: statefile.Event{Kind: statefile.EventInvalid, Target: m.cur.target, Err: err, At: fixedNow}}))
	bar := lineOfScreen(screen(m), "◂ fleet")
	if !strings.Contains(bar, "broken ✗ invalid") || strings.Contains(bar, "waiting") {
		t.Fatalf("the fleet bar of a broken loop: %q", bar)
	}
}

// After a jump that found nothing, a jump that lands clears the footer's
// "no atom A99": it no longer says what happened last.
func TestJumpThatLandsClearsTheMiss(t *testing.T) {
	m := loadedModel(t, "rich.md", 100, 30)
	jump := func(q string) {
		press(m, ":")
		for _, r := range q {
			press(m, string(r))
		}
		press(m, "enter")
	}
	jump("A99")
	if foot := lineOfScreen(screen(m), "no atom"); !strings.Contains(foot, "no atom A99") {
		t.Fatalf("a jump to A99 says nothing:\n%s", screen(m))
	}
	jump("a5")
	out := screen(m)
	if strings.Contains(out, "no atom A99") {
		t.Fatalf("after :a5 the footer still says no atom A99:\n%s", out)
	}
	if a := m.cur.graph.selected(); a == nil || a.ID != "A5" {
		t.Fatalf(":a5 selected %+v", a)
	}
}

// A prompt hard-wrapped for a wider screen is not re-wrapped line by line
// into a long line and a stub by turns: at 60 columns its paragraph reads
// as evenly filled lines. A paragraph whose lines fit keeps its breaks.
func TestPromptHardWrappedWiderThanThePane(t *testing.T) {
	para := []string{ // hard-wrapped at 72 columns
		"Build the billing service. Payments fail silently today, and finance",
		"needs an audit trail of every attempt, with retries that back off and a",
		"log they can query. Keep the public API as it is: the mobile clients",
		"cannot be updated this quarter.",
	}
	address := []string{"Finance team", "Building 4, room 12", "Sign-off by Friday"}
	body := "Build the **billing service**."
	m := modelOnText(t, richVariant(t, body, strings.Join(para, "\n")+"\n\n"+strings.Join(address, "\n")), 60, 30)
	press(m, "6")
	lines := screenLines(m)
	first, last := -1, -1
	for i, l := range lines {
		if strings.HasPrefix(l, "Build the billing") {
			first = i
		}
		if first >= 0 && last < 0 && strings.TrimSpace(l) == "" {
			last = i
		}
	}
	if first < 0 || last < 0 {
		t.Fatalf("no paragraph on the prompt view:\n%s", strings.Join(lines, "\n"))
	}
	shown := lines[first:last]
	var words []string
	for i, l := range shown {
		l = strings.TrimRight(l, " ")
		words = append(words, strings.Fields(l)...)
		if i < len(shown)-1 {
			// Greedy filling: the next line's first word would not have fit.
			next := strings.Fields(shown[i+1])[0]
			if len([]rune(l))+1+len([]rune(next)) <= 60 {
				t.Errorf("line %q ends short: %q would have fit after it", l, next)
			}
		}
	}
	if got, want := strings.Join(words, " "), strings.Join(strings.Fields(strings.Join(para, " ")), " "); got != want {
		t.Fatalf("the paragraph reads\n%s\nwant the words of\n%s", got, want)
	}
	for k, a := range address {
		if got := strings.TrimRight(lines[last+1+k], " "); got != a {
			t.Fatalf("line %d of the short paragraph %q, want %q (its own break)", k+1, got, a)
		}
	}
}
