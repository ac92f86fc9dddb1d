package report

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/history"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim"
	"github.com/aot-loop/aot-tui/statefile"
)

// A scenario is a simulated run to record: the demo loop, edited before
// it starts, with corrections applied when the hook starts an iteration.
type scenario struct {
	name string
	// edit changes the demo state before the run.
	edit func(string) string
	// redirect maps an iteration to the correction applied as it starts.
	redirect map[int]model.Request
}

var scenarios = []scenario{
	{name: "completed"},
	// Three iterations without progress stop it: the decomposition grows
	// the graph, an atom added at iteration 2 keeps the backtrack's
	// iteration from shrinking it, then two workers stall.
	{name: "stalled", redirect: map[int]model.Request{
		2: model.AddAtom{Description: "Rate-limit the login endpoint", DependsOn: []string{"A1"}},
	}},
	// Two corrections while it runs well: an atom added, then the
	// objective changed (which clears the trail); it completes.
	{name: "redirected", edit: func(s string) string {
		return strings.Replace(s, "max_iterations: 12", "max_iterations: 14", 1)
	}, redirect: map[int]model.Request{
		4: model.AddAtom{Description: "Rate-limit the login endpoint", DependsOn: []string{"A1"}},
		5: model.ChangeObjective{Goal: ptr("Add session-based login to the web API")},
	}},
}

func ptr(s string) *string { return &s }

// t0 is the start of the recorded runs' clock: versions are seen at t0 +
// 7 s each, a correction applied at iteration it is stamped t0 + it hours.
var t0 = time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC)

// record plays a scenario with the simulator and returns every version
// it wrote (and each correction's), as a journal would hold them, with
// times and timestamps made deterministic: version k is seen at t0 + 7k
// seconds, and the wall-clock timestamps the simulator writes into the
// trail are replaced by ones at t0 + 1 minute each.
func record(t *testing.T, sc scenario) []history.Version {
	t.Helper()
	path, err := sim.Setup(t.TempDir(), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if sc.edit != nil {
		data, _ := os.ReadFile(path)
		os.WriteFile(path, []byte(sc.edit(string(data))), 0o644)
	}
	initial, _ := os.ReadFile(path)
	datas := [][]byte{initial}
	var failure error
	onWrite := func(what string, data []byte) {
		datas = append(datas, data)
		if what != "hook continue" || failure != nil {
			return
		}
		doc, err := statefile.Parse(data)
		if err != nil {
			failure = err
			return
		}
		it := doc.State.Control.Iteration
		req, ok := sc.redirect[it]
		if !ok {
			return
		}
		res, err := statefile.Update(path, statefile.UpdateOptions{}, func(doc *statefile.Document) (*model.Plan, error) {
			return model.PlanCorrection(doc.State, req, model.PlanContext{Now: t0.Add(time.Duration(it) * time.Hour), Note: "from the report test"})
		})
		if err != nil {
			failure = fmt.Errorf("correction at iteration %d: %w", it, err)
			return
		}
		datas = append(datas, res.After)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := sim.Run(ctx, sim.Config{Path: path, Seed: 1, Speed: 1000, Demo: true, OnWrite: onWrite}); err != nil {
		t.Fatal(err)
	}
	if failure != nil {
		t.Fatal(failure)
	}
	return normalise(initial, datas)
}

var stampRE = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)

func normalise(initial []byte, datas [][]byte) []history.Version {
	keep := map[string]bool{}
	for _, s := range stampRE.FindAllString(string(initial), -1) {
		keep[s] = true
	}
	for it := range 24 {
		keep[t0.Add(time.Duration(it)*time.Hour).Format(time.RFC3339)] = true
	}
	mapped := map[string]string{}
	var out []history.Version
	for k, d := range datas {
		s := stampRE.ReplaceAllStringFunc(string(d), func(ts string) string {
			if keep[ts] {
				return ts
			}
			if m, ok := mapped[ts]; ok {
				return m
			}
			m := t0.Add(time.Duration(len(mapped)+1) * time.Minute).Format(time.RFC3339)
			mapped[ts] = m
			return m
		})
		out = append(out, history.Version{At: t0.Add(time.Duration(7*k) * time.Second), Data: []byte(s)})
	}
	return out
}
