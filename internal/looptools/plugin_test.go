package looptools_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/internal/looptools"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

var update = flag.Bool("update", false, "rewrite testdata/looptools/warnings.txt")

const scenarios = "../../testdata/looptools"

// pluginRun is what the plugin's own hook and scripts did with a scenario
// file (testdata/looptools/plugin.json says how it was recorded).
type pluginRun struct {
	Hook struct {
		Exit     int                `json:"exit"`
		Decision string             `json:"decision"`
		Reason   string             `json:"reason"`
		Written  map[string]*string `json:"written"`
		Stderr   []string           `json:"stderr"`
	} `json:"hook"`
	ReadState struct {
		Atoms []struct {
			ID        string   `json:"id"`
			Status    *string  `json:"status"`
			DependsOn []string `json:"depends_on"`
		} `json:"atoms"`
		Exit  int    `json:"exit"`
		Error string `json:"error"`
	} `json:"read_state"`
	ValidateState struct {
		Valid  *bool    `json:"valid"`
		Errors []string `json:"errors"`
	} `json:"validate_state"`
	UpdateAtomA2 int `json:"update_atom_A2"`
}

func pluginRuns(t *testing.T) map[string]pluginRun {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(scenarios, "plugin.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	runs := map[string]pluginRun{}
	for name, m := range raw {
		if strings.HasPrefix(name, "_") {
			continue
		}
		var r pluginRun
		if err := json.Unmarshal(m, &r); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		runs[name] = r
	}
	files, _ := filepath.Glob(filepath.Join(scenarios, "[0-9]*.md"))
	if len(files) != len(runs) || len(runs) < 40 {
		t.Fatalf("%d scenario files, %d recorded runs", len(files), len(runs))
	}
	return runs
}

// hookDecision is the outlook's decision for what the hook did: it
// continues the loop (block), approves a stop with a reason, or exits
// without a decision (0: it does not act on the loop; otherwise it
// failed, and Claude Code lets the stop proceed). Either way without a
// decision the loop ends, unless aot-tui reads it as not running anyway.
func hookDecision(r pluginRun, st *model.State) model.Decision {
	h := r.Hook
	switch {
	case h.Decision == "block":
		return model.DecisionContinue
	case h.Exit != 0:
		return model.DecisionStop
	case h.Decision == "":
		if st.Control.Status == model.LoopRunning {
			return model.DecisionStop
		}
		if st.Control.Status == model.LoopCompleted {
			return model.DecisionDone
		}
		return model.DecisionIdle
	case strings.HasPrefix(h.Reason, "AoT Loop completed"):
		return model.DecisionDone
	case strings.HasPrefix(h.Reason, "Redirect"):
		return model.DecisionPause
	}
	return model.DecisionStop
}

// TestAgainstThePlugin checks aot-tui's model of the loop's tools against
// what the plugin's own stop hook and scripts did with each scenario
// file: the outlook predicts the hook's decision (and the stall count it
// writes), the scripts' reading of the atoms is read_state.py's, and where
// validate_state.py or update_atom.py failed, a loop-tools warning says so.
func TestAgainstThePlugin(t *testing.T) {
	for name, want := range pluginRuns(t) {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(scenarios, name+".md"))
			if err != nil {
				t.Fatal(err)
			}
			doc, err := statefile.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			st := doc.State
			o := model.PredictOutlook(st, model.Derive(st))
			if d := hookDecision(want, st); o.Decision != d {
				t.Errorf("outlook %s (%q); the hook: exit %d, %q %q", o.Decision, o.Text, want.Hook.Exit, want.Hook.Decision, want.Hook.Reason)
			}
			if w := want.Hook.Written["stall_count"]; want.Hook.Decision == "block" && w != nil {
				next, err := strconv.Atoi(*w)
				if err != nil {
					next = st.Control.StallCount // it wrote the text it could not count back
				}
				if o.NextStall != next {
					t.Errorf("outlook next stall %d; the hook wrote stall_count: %s", o.NextStall, *w)
				}
			}
			warnings := model.LoopToolsWarnings(st)
			all := fmt.Sprint(warnings)
			if want.ReadState.Error != "" {
				if !strings.Contains(all, "UnicodeDecodeError") {
					t.Errorf("read_state.py failed (%s); warnings: %s", want.ReadState.Error, all)
				}
			} else {
				var got []string
				for _, a := range looptools.Atoms(data) {
					got = append(got, fmt.Sprintf("%s|%s|%v", a.ID, a.Status, a.DependsOn))
				}
				var exp []string
				for _, a := range want.ReadState.Atoms {
					s := ""
					if a.Status != nil {
						s = *a.Status
					}
					exp = append(exp, fmt.Sprintf("%s|%s|%v", a.ID, s, a.DependsOn))
				}
				if !reflect.DeepEqual(got, exp) {
					t.Errorf("the scripts' atoms:\n%q\nread_state.py:\n%q", got, exp)
				}
			}
			for _, e := range want.ValidateState.Errors {
				var key string
				switch {
				case strings.HasPrefix(e, "Missing YAML frontmatter"):
					key = "Missing YAML frontmatter"
				case strings.HasPrefix(e, "No atoms defined"):
					key = "No atoms defined"
				case strings.HasPrefix(e, "Missing required section"):
					key = "validate_state.py ends the frontmatter"
				case strings.HasPrefix(e, "Circular dependency"):
					key = "do not see atoms[1]"
				}
				if !strings.Contains(all, key) {
					t.Errorf("validate_state.py says %q; no warning has %q: %s", e, key, all)
				}
			}
			if want.UpdateAtomA2 != 0 && !strings.Contains(all, "atoms[1]") && !strings.Contains(all, "UnicodeDecodeError") {
				t.Errorf("update_atom.py A2 failed; no warning on atoms[1]: %s", all)
			}
		})
	}
}

// TestScenarioWarnings pins the loop-tools warnings of every scenario
// (testdata/looptools/warnings.txt; -update rewrites it). The clean
// scenarios have none.
func TestScenarioWarnings(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(scenarios, "[0-9]*.md"))
	sort.Strings(files)
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := statefile.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".md")
		w := model.LoopToolsWarnings(doc.State)
		switch name {
		case "01-clean", "04-status-quoted", "43-stall-limit":
			if len(w) > 0 {
				t.Errorf("%s: %v", name, w)
			}
		default:
			// A zero limit is a validation error; a missing status or a
			// comment after completed does not change what the hook does.
			if len(w) == 0 && name != "17-max-iterations-zero" && name != "15-status-missing" && name != "44-completed-comment" {
				t.Errorf("%s: no loop-tools warning", name)
			}
		}
		o := model.PredictOutlook(doc.State, model.Derive(doc.State))
		fmt.Fprintf(&b, "%s\n  outlook: %s: %s\n", name, o.Decision, o.Text)
		for _, p := range w {
			fmt.Fprintf(&b, "  %s\n", p)
		}
	}
	path := filepath.Join(scenarios, "warnings.txt")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != b.String() {
		t.Errorf("warnings differ from %s (go test -run TestScenarioWarnings -update rewrites it):\n%s", path, b.String())
	}
}
