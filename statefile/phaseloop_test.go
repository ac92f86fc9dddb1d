package statefile

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
)

func loadPhaseFixture(t *testing.T, name string) *model.PhaseLoop {
	t.Helper()
	p, err := LoadPhaseLoop(filepath.Join("..", "testdata", name), 0)
	if err != nil {
		t.Fatalf("LoadPhaseLoop %s: %v", name, err)
	}
	return p
}

// TestSeedPhaseLoop reads seed 004's mid-implementation example.
func TestSeedPhaseLoop(t *testing.T) {
	p := loadPhaseFixture(t, "seed-phase-loop.json")
	if p.Version != 2 || p.Phase != "work" || p.PhaseIteration != 2 || p.GlobalIteration != 9 ||
		p.MaxIterations != 50 || p.MaxPhaseIterations != 10 || p.FixReviewCycles != 0 || p.MaxFixCycles != 3 {
		t.Errorf("counters = %+v", p)
	}
	if !reflect.DeepEqual(p.PhasesCompleted, []string{"brainstorm", "plan", "spec_test", "deepen"}) {
		t.Errorf("phases_completed = %v", p.PhasesCompleted)
	}
	if a := p.Artifacts; a.PRURL != nil || a.Branch == nil || *a.Branch != "feat/auth-system" || *a.ProgressFile != "docs/progress.md" {
		t.Errorf("artifacts = %+v", a)
	}
	if len(p.Receipts) != 4 || p.Receipts[3] != (model.PhaseReceipt{Phase: "deepen", Artifact: "docs/plans/2026-02-13-feat-auth-plan.md", GitSHA: "h7i8j9k", Timestamp: "2026-02-13T10:55:00Z"}) {
		t.Errorf("receipts = %+v", p.Receipts)
	}
	if len(p.Checkpoints) != 2 || p.Checkpoints[0].Phase != "spec_test" || len(p.Errors) != 0 {
		t.Errorf("checkpoints = %+v, errors = %+v", p.Checkpoints, p.Errors)
	}
	if p.BudgetLimitUSD != 20 || p.CompletionPromise != "SHIPPED" || p.SkipBrainstorm || p.SkipTestReview ||
		p.StartedAt != "2026-02-13T10:00:00Z" || p.LastUpdated != "2026-02-13T11:00:00Z" {
		t.Errorf("the rest = %+v", p)
	}
	if want := []string{"review", "fix", "re_review", "compound", "test", "ship"}; !reflect.DeepEqual(p.RemainingPhases(), want) {
		t.Errorf("RemainingPhases = %v", p.RemainingPhases())
	}
	if p.Shipped() || p.Extra != nil || len(p.Problems) != 0 {
		t.Errorf("Shipped %v, Extra %v, Problems %v", p.Shipped(), p.Extra, p.Problems)
	}
	for key, line := range map[string]int{"version": 2, "phase": 4, "phases_completed": 11, "receipts": 20, "receipts[0]": 21, "receipts[3]": 24, "checkpoints[1]": 28, "errors": 30, "last_updated": 36} {
		if p.Lines[key] != line {
			t.Errorf("Lines[%s] = %d, want %d", key, p.Lines[key], line)
		}
	}
	if r := model.ValidatePhaseLoop(p); !r.Valid || len(r.Warnings) != 0 || len(r.Errors) != 0 {
		t.Errorf("report = %+v", r)
	}
}

func TestPhaseLoopUnknownFieldsAndShipped(t *testing.T) {
	p := loadPhaseFixture(t, "valid/phase-shipped.json")
	if p.Extra["owner"] != "someone" || p.Artifacts.Extra["coverage_report"] != "cov.html" {
		t.Errorf("Extra = %v, artifacts Extra = %v", p.Extra, p.Artifacts.Extra)
	}
	if !p.Shipped() || len(p.RemainingPhases()) != 0 || !p.SkipTestReview {
		t.Errorf("shipped %v, remaining %v", p.Shipped(), p.RemainingPhases())
	}
}

func TestPhaseLoopDefaults(t *testing.T) {
	p, err := ParsePhaseLoop([]byte(`{"version": 2, "phase": "plan", "phase_iteration": 0, "global_iteration": 0}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.EffectiveMaxIterations() != 50 || p.EffectiveMaxPhaseIterations() != 10 || p.EffectiveMaxFixCycles() != 3 {
		t.Errorf("defaults = %d %d %d", p.EffectiveMaxIterations(), p.EffectiveMaxPhaseIterations(), p.EffectiveMaxFixCycles())
	}
	if p.Lines["phase"] != 1 || p.Lines["global_iteration"] != 1 {
		t.Errorf("Lines = %v", p.Lines)
	}
}

func TestParsePhaseLoopErrors(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		line, col int
		msg       string
	}{
		{"missing comma", "{\n  \"version\": 2,\n  \"phase\": \"work\"\n  \"x\": 1\n}", 4, 3, "JSON syntax error: invalid character '\"' after object key:value pair"},
		{"trailing comma", "{\n  \"version\": 2,\n}\n", 3, 1, "JSON syntax error: invalid character '}'"},
		{"truncated", "{\n  \"version\": 2,\n  \"phase\": \"wo", 3, 14, "JSON syntax error: unexpected end of JSON input"},
		{"a string", "\"work\"", 1, 1, "the file holds a JSON string, not a phase loop object"},
		{"an array after blank lines", "\n\n  [1, 2]", 3, 3, "the file holds a JSON array, not a phase loop object"},
		{"whitespace only", "  \n\t\n", 1, 0, "the file is empty"},
		{"garbage after the object", "{\"version\": 2}\nrest", 2, 1, "JSON syntax error: invalid character 'r' after top-level value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePhaseLoop([]byte(tt.in))
			e, ok := ParseError(err)
			if !ok {
				t.Fatalf("err = %v", err)
			}
			if e.Line != tt.line || e.Column != tt.col || !strings.HasPrefix(e.Msg, tt.msg) {
				t.Errorf("got line %d column %d: %q; want line %d column %d: %q…", e.Line, e.Column, e.Msg, tt.line, tt.col, tt.msg)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("not one line: %q", err)
			}
		})
	}
}

func TestParsePhaseLoopTolerates(t *testing.T) {
	// A BOM, CRLF line endings and a duplicate key (the later one wins).
	in := "\xEF\xBB\xBF{\r\n  \"version\": 2,\r\n  \"phase\": \"plan\",\r\n  \"phase\": \"work\",\r\n  \"phase_iteration\": 1,\r\n  \"global_iteration\": 4\r\n}\r\n"
	p, err := ParsePhaseLoop([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if p.Phase != "work" || p.Lines["phase"] != 4 || p.Lines["global_iteration"] != 6 {
		t.Errorf("phase %q on line %d; Lines = %v", p.Phase, p.Lines["phase"], p.Lines)
	}
	// A wrong type inside an array element is a problem with its line.
	p, err = ParsePhaseLoop([]byte("{\"version\": 2, \"phase\": \"work\", \"phase_iteration\": 0, \"global_iteration\": 1,\n\"errors\": [\n {\"phase\": \"work\", \"iteration\": \"x\"}\n]}"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Problems) != 1 || p.Problems[0].Line != 3 || !strings.Contains(p.Problems[0].Message, "should be a number, not a JSON string") {
		t.Errorf("Problems = %+v", p.Problems)
	}
}
