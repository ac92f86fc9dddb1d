package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/history"
	"github.com/aot-loop/aot-tui/model"
)

// An in-progress atom deleted with --interrupt: the worker's script then
// fails "Atom A9 not found", and status — reading the journal a TUI keeps
// (here one an older aot-tui kept beside the file) — says so until the
// iteration moves on.
func TestStatusNamesAGoneWorker(t *testing.T) {
	py, bin := loopPython(t), binary(t)
	path, script := workerProject(t)
	// What a TUI watching the loop records: the version before.
	j, err := history.OpenJournal(history.JournalBeside(path), history.JournalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	record := func() {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Append(history.Version{At: time.Now(), Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	record()
	if code, out, errs := runBin(t, bin, "redirect", "delete-atom", "A9", "--detach", "--interrupt", "-f", path, "--guard", "0"); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	record()
	out, err := exec.Command(py, script, path, "A9", "resolved").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Atom A9 not found") {
		t.Fatalf("the worker's write on the deleted atom: %v\n%s", err, out)
	}
	// The loop writes on: another atom starts, in the same iteration.
	if out, err := exec.Command(py, script, path, "A9b", "in_progress").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	record()
	const note = "A9 was in progress and is gone: the worker's update_atom.py A9 … will fail 'Atom A9 not found'"
	code, stdout, errs := runBin(t, bin, "status", path)
	if code != 0 || !strings.Contains(stdout, "outlook   ⚠ "+note) {
		t.Fatalf("status: exit %d\n%s%s\nwant the outlook to say %q", code, stdout, errs, note)
	}
	_, stdout, _ = runBin(t, bin, "status", "--json", path)
	var st struct {
		Outlook struct {
			Text    string
			Warning bool
		}
		Gone []struct {
			ID        string
			Iteration int
		} `json:"gone_in_progress"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(st.Outlook.Text, note) || !st.Outlook.Warning || len(st.Gone) != 1 || st.Gone[0].ID != "A9" || st.Gone[0].Iteration != 4 {
		t.Fatalf("status --json: outlook %+v, gone %+v", st.Outlook, st.Gone)
	}
	// The hook counts the next iteration: the coordinator has ended.
	data, _ := os.ReadFile(path)
	if err := os.WriteFile(path, bytes.Replace(data, []byte("iteration: 4"), []byte("iteration: 5"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stdout, _ := runBin(t, bin, "status", path); strings.Contains(stdout, "is gone") {
		t.Fatalf("the note outlived its iteration:\n%s", stdout)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

// status reads the journal's tail while it parses when the file's bytes
// say the loop runs (readTail), and after, from the parsed state, when
// they do not say it in those words (a quoted status): the atoms gone
// while in progress are the same either way.
func TestStatusGoneWithOrWithoutTheRunningHint(t *testing.T) {
	state := func(status string, a1 string, n int) []byte {
		atoms := ""
		if a1 != "" {
			atoms = "  - id: A1\n    description: \"one\"\n    status: " + a1 + "\n    depends_on: []\n"
		}
		return []byte("---\nobjective:\n  goal: \"g\"\ncontrol:\n  status: " + status + "\n  iteration: 3\n  stall_count: 0\n" +
			"  prev_pending_count: -1\n  stop_requested: false\n  stop_reason: null\n  redirect_requested: false\natoms:\n" + atoms +
			"  - id: A2\n    description: \"two " + strconv.Itoa(n) + "\"\n    status: pending\n    depends_on: []\n---\n")
	}
	for _, status := range []string{"running", `"running"`} {
		path := filepath.Join(t.TempDir(), "aot-loop-state.md")
		j, err := history.OpenJournal(history.JournalBeside(path), history.JournalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range [][]byte{state(status, "in_progress", 0), state(status, "", 1)} {
			if _, err := j.Append(history.Version{At: time.Now(), Data: v}); err != nil {
				t.Fatal(err)
			}
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, state(status, "", 2), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errs bytes.Buffer
		if code := run([]string{"status", "--json", "--no-activity", "-f", path}, &out, &errs); code != 0 {
			t.Fatalf("status %s: exit %d: %s", status, code, errs.String())
		}
		var st struct {
			Gone []model.Gone `json:"gone_in_progress"`
		}
		if err := json.Unmarshal(out.Bytes(), &st); err != nil {
			t.Fatal(err)
		}
		if len(st.Gone) != 1 || st.Gone[0].ID != "A1" {
			t.Fatalf("status %s: gone_in_progress %+v, want A1", status, st.Gone)
		}
	}
}
