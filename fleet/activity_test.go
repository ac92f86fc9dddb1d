package fleet

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/sim"
	"github.com/aot-loop/aot-tui/statefile"
)

// The watcher follows each AoT loop's sessions: the row gets the
// transcript's totals, then what is appended (and only that is read: the
// tokens grow by one response), and a wait the hook records makes the
// loop needs_you, first in the table, and counted; a phase loop's
// sessions are not read, and without Options.Activity no row has any.
func TestWatcherFollowsTheSessions(t *testing.T) {
	root := t.TempDir()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	busy := filepath.Join(root, "busy")
	if _, err := sim.Setup(busy, 4, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Setup(filepath.Join(root, "calm"), 4, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.SetupPhase(filepath.Join(root, "phase"), "feature", 3); err != nil {
		t.Fatal(err)
	}
	claude, hooks := t.TempDir(), t.TempDir()
	body, responses, tokens := transcriptBody(64 << 10)
	session := "dddddddd-0000-4000-8000-000000000001"
	file := writeTranscript(t, claude, busy, session, body)
	act := func(statePath string) (agent.Options, []string, bool) {
		project := statefile.ProjectDir(statePath)
		return agent.Options{Project: project, Root: claude, Quick: true, HookFile: agent.HookEventsFile(hooks, project)}, nil, true
	}
	w := startWatcher(t, []string{root}, Options{Depth: 1, Activity: act, ActivityEvery: 100 * time.Millisecond})
	row := func(rows []Row, name string) Row {
		for _, r := range rows {
			if r.Name == name {
				return r
			}
		}
		return Row{}
	}
	waitRows(t, w, 10*time.Second, "the transcript's totals", func(rows []Row) bool {
		a := row(rows, "busy").Activity
		return a != nil && a.Found && a.Responses == responses && a.Tokens.Total == tokens && row(rows, "calm").Activity != nil
	})
	if rows := w.Rows(); row(rows, "phase").Activity != nil || row(rows, "calm").Activity.Found {
		t.Fatalf("phase %+v, calm %+v", row(rows, "phase").Activity, row(rows, "calm").Activity)
	}

	// One more response appended.
	more, _, moreTokens := transcriptBody(1)
	more = bytes.ReplaceAll(more, []byte(`"msg_0"`), []byte(`"msg_appended"`))
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(more); err != nil {
		t.Fatal(err)
	}
	f.Close()
	waitRows(t, w, 10*time.Second, "the appended response", func(rows []Row) bool {
		a := row(rows, "busy").Activity
		return a != nil && a.Responses == responses+1 && a.Tokens.Total == tokens+moreTokens
	})

	// The hook records that calm's session waits for a person.
	in := agent.HookInput{SessionID: "eeeeeeee-0000-4000-8000-000000000001", CWD: filepath.Join(root, "calm"), HookEventName: "Notification",
		NotificationType: "idle_prompt", Message: "Claude is waiting for your input"}
	if _, err := agent.RecordHook(hooks, in, time.Now(), time.Second); err != nil {
		t.Fatal(err)
	}
	waitRows(t, w, 10*time.Second, "calm needs you", func(rows []Row) bool {
		return len(rows) == 3 && rows[0].Name == "calm" && rows[0].Attention == AttentionNeedsYou &&
			rows[0].Reason == "needs you: Claude is waiting for your input"
	})
	if s := Summarize(w.Rows()); s.NeedsYou != 1 || s.NeedsAttention < 1 {
		t.Fatalf("summary %+v", s)
	}

	// Without Options.Activity nothing is read.
	w2 := startWatcher(t, []string{root}, Options{Depth: 1})
	waitRows(t, w2, 10*time.Second, "three rows", func(rows []Row) bool { return len(rows) == 3 })
	time.Sleep(300 * time.Millisecond)
	for _, r := range w2.Rows() {
		if r.Activity != nil || r.Attention == AttentionNeedsYou {
			t.Fatalf("%s: activity %+v without Options.Activity", r.Name, r.Activity)
		}
	}
}

// A session that waits alerts once per wait: a new wait of the same
// session alerts again, the wait ending alerts nothing (the attention
// under it was there before), and an attention that starts under a wait
// alerts when the wait ends only if it is new.
func TestAlertReasonOncePerWait(t *testing.T) {
	at := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	base := Row{Path: "p", Name: "p", Kind: "aot-loop", File: FileOK, Status: "running", MaxIterations: 10, MaxStallCount: 3}
	wait := func(r Row, since time.Time) Row {
		return WithActivity(r, &agent.Report{NeedsYou: &agent.NeedsYou{Kind: "permission_prompt", Message: "allow Bash?", Session: "s", Since: since}})
	}
	calm := WithActivity(base, &agent.Report{})
	near := base
	near.StallCount = 2
	near = WithActivity(near, &agent.Report{})
	for _, c := range []struct {
		name      string
		prev, cur Row
		want      string
	}{
		{"a wait begins", calm, wait(calm, at), "needs you: allow Bash?"},
		{"the same wait", wait(calm, at), wait(calm, at), ""},
		{"a new wait", wait(calm, at), wait(calm, at.Add(time.Minute)), "needs you: allow Bash?"},
		{"the wait ends", wait(calm, at), calm, ""},
		{"the wait ends over the same near limit", wait(near, at), near, ""},
		{"the loop came near its limit under the wait", wait(calm, at), near, "stall 2/3: one more stalled iteration stops the loop"},
		{"first sight", Row{}, wait(calm, at), ""},
	} {
		if got := AlertReason(c.prev, c.cur); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if a, why := wait(near, at).UnderWait(); a != AttentionNearLimit || why == "" {
		t.Errorf("under the wait: %v %q", a, why)
	}
}
