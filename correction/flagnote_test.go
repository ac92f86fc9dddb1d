package correction

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
)

// The words under a preview say what clearing redirect_requested with the
// write does to the loop: a stop does not resume it, and a loop that is
// not running does not resume either.
func TestFlagNoteSaysWhatTheLoopDoes(t *testing.T) {
	for _, c := range []struct {
		name   string
		status string
		req    model.Request
		want   string
	}{
		{"stop", "running", model.Stop{Reason: "enough"}, "and redirect_requested back to false: the stop hook then ends the loop at its next decision"},
		{"add to a running loop", "running", addRunbook, "and redirect_requested back to false: the loop resumes"},
		{"add to a stopped loop", "stopped", addRunbook, "the loop is stopped: nothing runs until /enter-recursion starts it again"},
		{"add to a pending loop", "pending", addRunbook, "the loop has not started: nothing runs until /enter-recursion"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := fixture(t, false)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, bytes.Replace(data, []byte("  status: running"), []byte("  status: "+c.status), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			s := newSession(path)
			run(t, s.Begin()) // a form is open: the flag is ours
			pr := run(t, s.Preview(c.req, "")).(PreviewResult)
			if pr.Err != nil || !pr.Preview.ClearsFlag {
				t.Fatalf("preview: %+v", pr)
			}
			note := pr.Preview.FlagNote()
			if !strings.Contains(note, c.want) || c.name != "add to a running loop" && strings.Contains(note, "resumes") {
				t.Fatalf("flag note %q, want it to say %q", note, c.want)
			}
		})
	}
	// No note when the write leaves the flag alone.
	path := fixture(t, false)
	pr := run(t, newSession(path).Preview(addRunbook, "")).(PreviewResult)
	if pr.Err != nil || pr.Preview.FlagNote() != "" {
		t.Fatalf("a write that leaves the flag alone: %+v, note %q", pr, pr.Preview.FlagNote())
	}
}
