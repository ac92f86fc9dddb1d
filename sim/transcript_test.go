package sim

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// claudeRun plays a loop (atoms 0: the scripted demo) that writes
// Claude Code's records into its own directory, and returns the run's
// result, the options that read them as aot-tui does, and what the
// reader said at each moment the simulator reported (OnClaude).
func claudeRun(t *testing.T, atoms int, seed uint64) (Result, agent.Options, map[string]*agent.Activity) {
	t.Helper()
	dir := t.TempDir()
	path, err := Setup(filepath.Join(dir, "project"), atoms, seed)
	if err != nil {
		t.Fatal(err)
	}
	files := &ClaudeFiles{Projects: filepath.Join(dir, "claude", "projects"), Hooks: filepath.Join(dir, "state", "aot-tui", "hooks")}
	project := statefile.ProjectDir(path)
	o := agent.Options{Project: project, Root: files.Projects, HookFile: agent.HookEventsFile(files.Hooks, project)}
	seen := map[string]*agent.Activity{}
	cfg := Config{Path: path, Seed: seed, Speed: 1000, Demo: atoms == 0, Claude: files, OnClaude: func(what string) {
		// The simulator waits while the reader reads: what it sees is
		// what a viewer sees at this moment, whatever the clock.
		seen[what] = agent.Open(o)
	}}
	res, _ := runChecked(t, cfg)
	if res.Claude == nil {
		t.Fatal("the run reports no Claude Code records")
	}
	if res.Claude.Err != nil {
		t.Fatal(res.Claude.Err)
	}
	doc, err := statefile.Load(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range doc.State.Atoms {
		o.Atoms = append(o.Atoms, a.ID)
	}
	return res, o, seen
}

// checkRecords reads the run's records as aot-tui does and checks that
// the reader recognises every line and finds exactly the tokens the
// simulator wrote, attributed as it meant them.
func checkRecords(t *testing.T, res Result, o agent.Options) *agent.Activity {
	t.Helper()
	w := res.Claude
	a := agent.Open(o)
	if !a.Found || len(a.Sessions) != 1 || a.Sessions[0].ID != w.Session {
		t.Fatalf("the reader found %v (sessions %+v), want the session %s in %s", a.Dirs, a.Sessions, w.Session, w.Dir)
	}
	if n := a.NotRecognised(); n != "" || len(a.UnknownBlocks) > 0 || len(a.Notes) > 0 {
		t.Fatalf("the reader did not recognise all of it: %q, blocks %v, notes %v", n, a.UnknownBlocks, a.Notes)
	}
	if a.Lines != w.Lines {
		t.Fatalf("the reader read %d lines, the simulator wrote %d", a.Lines, w.Lines)
	}
	if a.Total.Responses != w.Responses || a.Total.Tokens() != w.Tokens {
		t.Fatalf("the reader counts %d responses, %+v; the simulator wrote %d, %+v", a.Total.Responses, a.Total.Tokens(), w.Responses, w.Tokens)
	}
	for atom, tok := range w.ByAtom {
		if got := a.ByAtom[atom].Tokens(); got != tok {
			t.Errorf("atom %q: the reader attributes %+v, the simulator wrote %+v", atom, got, tok)
		}
	}
	for atom := range a.ByAtom {
		if _, ok := w.ByAtom[atom]; !ok {
			t.Errorf("the reader attributes tokens to %q, the simulator none", atom)
		}
	}
	var iters agent.Tokens
	for _, u := range a.ByIteration {
		iters = addTokens(iters, u.Tokens())
	}
	if iters != w.Tokens || a.IterationsFrom != "transcript" {
		t.Errorf("by iteration (from %q) the reader counts %+v of %+v", a.IterationsFrom, iters, w.Tokens)
	}
	for _, atom := range w.Workers {
		if a.ByAtom[atom].Responses == 0 {
			t.Errorf("the worker of %s used no tokens the reader attributes to it", atom)
		}
	}
	workers := 0
	for _, ag := range a.Agents {
		if ag.Role == "worker" {
			workers++
			if ag.Atom == "" || !ag.Ended || !strings.HasPrefix(ag.Description, ag.Atom+" ") {
				t.Errorf("worker %+v: want its atom, its description naming it, ended", ag)
			}
		}
	}
	if workers == 0 || a.Now != nil || a.NeedsYou != nil {
		t.Errorf("after the run: %d workers, now %+v, needs you %+v", workers, a.Now, a.NeedsYou)
	}
	return a
}

// The scripted demo writes a transcript aot-tui's reader takes whole: the
// tokens it wrote, each resolved atom's among them, and a permission
// prompt the reader sees as "needs you" until the session moves on.
func TestDemoWritesWhatClaudeCodeRecords(t *testing.T) {
	res, o, seen := claudeRun(t, 0, 1)
	if res.Status != model.LoopCompleted || res.Claude.Prompts != 1 {
		t.Fatalf("status %s, %d permission prompts; want completed, 1", res.Status, res.Claude.Prompts)
	}
	a := checkRecords(t, res, o)
	doc, err := statefile.Load(filepath.Join(o.Project, statefile.AoTStateRel), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range doc.State.Atoms {
		if at.Status == model.StatusResolved && a.ByAtom[at.ID].Responses == 0 {
			t.Errorf("resolved atom %s has no tokens", at.ID)
		}
	}
	if !a.HookSeen {
		t.Error("the reader saw no hook event")
	}

	asked := seen["permission prompt"]
	if asked == nil {
		t.Fatal("the simulator never reported its permission prompt")
	}
	ny := asked.NeedsYou
	if ny == nil || ny.Kind != "permission_prompt" || ny.Message != permissionMessage || ny.Inferred || !strings.HasSuffix(ny.Agent, " worker") {
		t.Fatalf("during the prompt the reader says needs you %+v", ny)
	}
	if n := asked.Now; n == nil || n.Agent != ny.Agent || n.Step.Line() != "Bash "+promptCommand {
		t.Fatalf("during the prompt the reader says now %+v", n)
	}
	given := seen["permission given"]
	if given == nil || given.NeedsYou != nil {
		t.Fatalf("after the answer the reader says needs you %+v", given.NeedsYou)
	}
	if n := given.Now; n == nil || n.Agent != ny.Agent || n.Step.Line() == "Bash "+promptCommand {
		t.Fatalf("after the answer the worker should be on its next step: now %+v", n)
	}
}

// A random run writes records too, without a permission prompt.
func TestRandomRunWritesWhatClaudeCodeRecords(t *testing.T) {
	res, o, seen := claudeRun(t, 30, 7)
	if res.Claude.Prompts != 0 || len(seen) != 0 {
		t.Fatalf("a random run asked for permission: %d prompts, %v", res.Claude.Prompts, seen)
	}
	if len(res.Claude.Workers) < 20 {
		t.Fatalf("workers for only %v", res.Claude.Workers)
	}
	checkRecords(t, res, o)
	if _, err := os.Stat(filepath.Dir(o.HookFile)); err != nil {
		t.Fatalf("the hooks directory should be made for the reader to watch: %v", err)
	}
	if _, err := os.Stat(o.HookFile); !os.IsNotExist(err) {
		t.Fatalf("a random run recorded hook events: %v", err)
	}
}

// Two runs of one seed write the same records but for the clock's
// timestamps and the directory they ran in.
func TestClaudeRecordsAreDeterministic(t *testing.T) {
	var texts [2]string
	for k := range texts {
		res, o, _ := claudeRun(t, 0, 3)
		texts[k] = recordsText(t, o.Root, o.Project, res.Claude.Dir)
		if k == 1 && texts[1] != texts[0] {
			t.Fatalf("two runs of seed 3 wrote different records:\n%s\n----\n%s", texts[0], texts[1])
		}
	}
}

var timestamp = regexp.MustCompile(`"timestamp":"[^"]*"`)

// recordsText is every transcript under root, by its path in dir, with
// its timestamps and the project's path taken out.
func recordsText(t *testing.T, root, project, dir string) string {
	t.Helper()
	cwd, err := filepath.EvalSymlinks(project)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	texts := map[string]string{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		names = append(names, rel)
		texts[rel] = timestamp.ReplaceAllString(strings.ReplaceAll(string(data), cwd, "PROJECT"), `"timestamp":""`)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString("== " + n + "\n" + texts[n])
	}
	return b.String()
}
