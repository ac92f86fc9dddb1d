package model

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// readAsHook gives s the LoopRead of a file in the template layout: the
// hook reads every value as aot-tui does, on the line it is on.
func readAsHook(s *State) {
	f := Derive(s)
	s.Control.Lines = Lines{}
	for i, k := range []string{"status", "iteration", "stall_count", "prev_pending_count", "stop_requested", "redirect_requested"} {
		s.Control.Lines = s.Control.Lines.With(k, 10+i)
	}
	h := HookRead{Pending: f.Counts.Pending, InProgress: f.Counts.InProgress, Resolved: f.Counts.Resolved}
	for fl := HookField(0); fl < NumHookFields; fl++ {
		h.Values[fl].Text, h.Values[fl].Line, _ = yamlField(s, fl)
	}
	s.LoopRead = &LoopRead{Hook: h}
}

// TestHookReadingAsParsedKeepsTheOutlook: when the hook reads every value
// as aot-tui parsed it, simulating the hook decides what the outlook made
// of the parse, and the outlook is left as it was (random states around
// every limit).
func TestHookReadingAsParsedKeepsTheOutlook(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	statuses := []AtomStatus{StatusPending, StatusInProgress, StatusResolved}
	for i := 0; i < 3000; i++ {
		var atoms []string
		for k := 0; k < r.Intn(5); k++ {
			atoms = append(atoms, "A"+strconv.Itoa(k)+":"+string(statuses[r.Intn(3)]))
		}
		s := state(r.Intn(6)-1, r.Intn(4), r.Intn(12), atoms...)
		s.Control.Status = []LoopStatus{LoopRunning, LoopRunning, LoopRunning, LoopStopped, LoopCompleted, LoopPending}[r.Intn(6)]
		s.Control.StopRequested = r.Intn(8) == 0
		s.Control.RedirectRequested = r.Intn(8) == 0
		f := Derive(s)
		want := PredictOutlook(s, f)
		readAsHook(s)
		if got := PredictOutlook(s, f); got != want {
			t.Fatalf("state %+v\nthe hook reading as parsed: %+v\nthe parse: %+v", s.Control, got, want)
		}
		if w := LoopToolsWarnings(s); len(w) > 0 {
			t.Fatalf("warnings on a faithful reading: %v", w)
		}
	}
}

// TestOutlookFollowsTheHooksReading: where the hook reads a value
// otherwise, the outlook says what the hook will do and why.
func TestOutlookFollowsTheHooksReading(t *testing.T) {
	cases := []struct {
		name     string
		field    HookField
		text     string
		decision Decision
		next     int
		says     string
	}{
		{"status with a comment", HookStatus, "running   # pending | running", DecisionStop, 1,
			"the stop hook reads control.status as 'running   # …' (inline comment, line 10): the loop will end"},
		{"status with a blank after it", HookStatus, "running ", DecisionStop, 1, "(trailing blanks, line 10): the loop will end"},
		{"prev_pending_count with a comment", HookPrevPendingCount, "2  # previous", DecisionContinue, 2,
			"continues, stall 2/3 after this iteration — the stop hook reads control.prev_pending_count as '2  # …' (inline comment, line 13), which bash cannot read as a number"},
		{"iteration null", HookIteration, "null", DecisionStop, 1, "the stop hook fails on control.iteration 'null' (line 11; bash: null: unbound variable): the loop will end"},
		{"iteration with a comment", HookIteration, "4 # n", DecisionStop, 1, "bash cannot add 1 to control.iteration '4 # …' (inline comment, line 11) and then stops on the unset NEXT_ITERATION"},
		{"stall_count with a comment", HookStallCount, "1  # s", DecisionContinue, 1, "continues, not counting the stall"},
		{"stop_requested True", HookStopRequested, "True", DecisionContinue, 2, "continues, stall 2/3 after this iteration — the stop hook reads control.stop_requested as 'True' (line 14; only 'true' counts)"},
		{"max_stall_count with a comment", HookMaxStallCount, "3  # x", DecisionContinue, 3, "continues, stall 3/3 after this iteration — the stop hook reads constraints.max_stall_count as '3  # …'"},
		{"an expression", HookIteration, "4 + 1", DecisionStop, 1, "aot-tui cannot tell what the stop hook decides"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Running, iteration 4 of 10, stall 1 of 3, 1 unresolved atom
			// as before: the hook as aot-tui reads it counts a second
			// stall and continues.
			s := state(1, 1, 4, "A1:pending", "A2:resolved")
			if c.field == HookPrevPendingCount {
				s.Control.PrevPendingCount = 2 // progress, as aot-tui reads it
			}
			if c.field == HookStopRequested {
				s.Control.StopRequested = true
			}
			if c.field == HookMaxStallCount {
				s.Control.StallCount = 2 // the hook stops at 3/3 where it can compare
			}
			readAsHook(s)
			f := Derive(s)
			before := predictParsed(s, f, StuckAtoms)
			s.LoopRead.Hook.Values[c.field].Text = c.text
			o := PredictOutlook(s, f)
			if c.field == HookIteration && strings.Contains(c.text, "+") {
				if o.Decision != before.Decision || !strings.Contains(o.Text, c.says) {
					t.Fatalf("outlook %+v", o)
				}
				return
			}
			if o.Decision != c.decision || !strings.Contains(o.Text, c.says) || c.decision == DecisionContinue && o.NextStall != c.next {
				t.Fatalf("outlook %+v\nwant %s, next stall %d, saying %q", o, c.decision, c.next, c.says)
			}
		})
	}
}

// TestLatentMisreading: a value the hook misreads that does not change
// its next decision still shows in the outlook, with what it will do.
func TestLatentMisreading(t *testing.T) {
	s := state(3, 0, 4, "A1:pending", "A2:resolved")
	readAsHook(s)
	s.LoopRead.Hook.Values[HookMaxIterations] = HookValue{Text: "10   # hard stop", Line: 1}
	o := PredictOutlook(s, Derive(s))
	want := "continues: unresolved 3 → 1; but the stop hook reads constraints.max_iterations as '10   # …' (inline comment, line 1): bash cannot compare with it, so the hook never stops at the iteration limit"
	if o.Decision != DecisionContinue || !o.Warning || o.Text != want {
		t.Fatalf("outlook %+v\nwant %q", o, want)
	}
}

// TestHookFrame: a file whose frontmatter the hook does not find ends the
// loop, and one warning says why (not one per value it then misses).
func TestHookFrame(t *testing.T) {
	for frame, says := range map[HookFrame]string{
		FrameBOM:    "byte order mark",
		FrameCRLF:   "CRLF line ends",
		FrameBlanks: "blanks after it",
	} {
		s := state(3, 0, 4, "A1:pending")
		readAsHook(s)
		s.LoopRead.Hook = HookRead{Frame: frame, FrameLine: 1}
		o := PredictOutlook(s, Derive(s))
		w := LoopToolsWarnings(s)
		if o.Decision != DecisionStop || !strings.Contains(o.Text, says) || !strings.HasSuffix(o.Text, "the loop will end") {
			t.Errorf("%s: outlook %+v", says, o)
		}
		if len(w) != 1 || !strings.Contains(w[0].Message, says) || w[0].Line != 1 {
			t.Errorf("%s: warnings %v", says, w)
		}
	}
}

func TestShownValue(t *testing.T) {
	for in, want := range map[string]string{
		"running                           # pending | running": "'running   # …'",
		"3 # x":                 "'3 # …'",
		"#x":                    "'# …'",
		"a#b":                   "'a#b'",
		"plain":                 "'plain'",
		strings.Repeat("x", 50): "'" + strings.Repeat("x", 39) + "…'",
	} {
		if got := shownValue(in); got != want {
			t.Errorf("shownValue(%q) = %q, want %q", in, got, want)
		}
	}
}
