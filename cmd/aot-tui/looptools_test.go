package main

import (
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestLoopToolsOnTheSeedExample runs the built binary on the seed's own
// complete example, whose inline comment after 'status: running' the
// loop's stop hook reads as part of the status: run on this file, the
// plugin's hook exits 0 without a decision and the loop ends
// (testdata/looptools/plugin.json, 45-seed-complete). validate --json
// reports that misreading with its line, path and kind, as a warning (the
// file stays valid); status --json predicts the hook's decision.
func TestLoopToolsOnTheSeedExample(t *testing.T) {
	bin := binary(t)
	const seed = "../../testdata/seed-complete.md"
	const misread = "the stop hook reads control.status as 'running   # …' (inline comment, line 65): the loop will end"

	out, err := exec.Command(bin, "validate", "--json", seed).Output()
	if err != nil {
		t.Fatalf("validate --json: %v (a loop-tools warning must not make the file invalid)", err)
	}
	var v struct {
		Valid    bool `json:"valid"`
		Problems []struct {
			Severity, Kind, Path, Message string
			Line                          int
		} `json:"problems"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range v.Problems {
		if p.Kind == "loop-tools" && p.Line == 65 && p.Path == "control.status" && p.Severity == "warning" && strings.HasPrefix(p.Message, misread) {
			found = true
		}
	}
	if !v.Valid || !found {
		t.Fatalf("validate --json: valid %v, no loop-tools warning on line 65:\n%s", v.Valid, out)
	}

	out, _ = exec.Command(bin, "validate", seed).Output()
	if !strings.Contains(string(out), "warning (loop-tools): line 65: "+misread) {
		t.Fatalf("validate:\n%s", out)
	}

	out, err = exec.Command(bin, "status", "--json", "-f", seed).Output()
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Outlook struct {
			Decision, Text string
			Warning        bool
		} `json:"outlook"`
	}
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatal(err)
	}
	if s.Outlook.Decision != "stop" || s.Outlook.Text != misread || !s.Outlook.Warning {
		t.Fatalf("status --json outlook: %+v", s.Outlook)
	}

	// A file the loop's tools read as aot-tui does has none of this.
	out, err = exec.Command(bin, "validate", "../../testdata/looptools/01-clean.md").Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) || strings.Contains(string(out), "loop-tools") {
		t.Fatalf("validate on a clean file: %v\n%s", err, out)
	}
}
