// Package sim plays an AoT loop the way the real one behaves (seeds 000 and
// 003): it works through the atoms of a state file iteration by iteration,
// resolving, decomposing, backtracking and stalling, updates the control
// fields as the stop hook does, and obeys redirects; with Config.Claude it
// writes what Claude Code records of the loop's sessions as it works
// (transcript.go). aot-tui demo, the end-to-end tests and the benchmarks
// drive it; sim/gen generates large state files.
package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/statefile"
)

// Config configures a simulated loop.
type Config struct {
	// Path is the state file; it must exist (write DemoState or Generate
	// output there first).
	Path string
	// Seed makes the run reproducible (outcomes and timings).
	Seed uint64
	// Speed scales time: 1 is the demo's pace (a full demo run lasts about
	// a minute: Result.Paced), 10 is ten times faster.
	Speed float64
	// Demo plays the scripted demo (DemoState) instead of random outcomes.
	Demo bool
	// OnWrite, when set, sees every version the simulator writes.
	OnWrite func(what string, data []byte)
	// Logf, when set, narrates what the loop does.
	Logf func(format string, args ...any)
	// Claude, when set, makes the run write what Claude Code records of
	// the loop's sessions as it works: transcripts, and in the demo a
	// permission prompt's hook event (transcript.go).
	Claude *ClaudeFiles
	// OnClaude, when set, is told of the moments of those records a
	// reader should see: "permission prompt" (the hook event is
	// recorded) and "permission given" (the session moved on).
	OnClaude func(what string)
}

// Result summarises a finished run.
type Result struct {
	Status     model.LoopStatus
	StopReason string
	Iterations int
	Writes     int
	// Paced is how long the run waited at Speed 1, as its script paces
	// the workers: its length at Speed 1 but for the moments its reads
	// and writes take (and any wait for a redirect).
	Paced time.Duration
	// Claude is what the run wrote of Claude Code's records (nil without
	// Config.Claude).
	Claude *ClaudeWritten
}

// Outcome probabilities of a random run.
const (
	pStall     = 0.12
	pDecompose = 0.07
	pFailOR    = 0.35 // when the atom is an OR group's selected choice with an alternative left
)

type simulator struct {
	cfg    Config
	rng    *rand.Rand
	writes int
	// paced sums the waits of sleep, unscaled (Result.Paced).
	paced time.Duration
	// decomposed remembers atoms already split, so they are not split twice.
	decomposed map[string]bool
	// played counts the iterations played.
	played int
	// tr writes Claude Code's records (nil: none).
	tr *transcript
}

// promptWait is how long the demo's permission prompt waits for its
// answer, at speed 1.
const promptWait = 5 * time.Second

// promptCommand is the command the demo's worker asks permission to run.
const promptCommand = "go mod download"

// Run plays the loop until it completes or stops, or ctx ends (then it
// returns ctx.Err()). While redirect_requested is true it pauses; it
// re-reads the file before every write, so corrections are never lost: an
// added atom gets worked on, a deleted one leaves its plan, a forced OR
// choice is followed, new constraints apply, and stop_requested makes the
// hook stop it.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Speed <= 0 {
		cfg.Speed = 1
	}
	s := &simulator{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0xa07)), decomposed: map[string]bool{}}
	st, err := s.read()
	if err != nil {
		return Result{}, err
	}
	if cfg.Claude != nil {
		if cfg.Claude.Projects == "" {
			return Result{}, errors.New("simulator: Config.Claude needs the projects directory")
		}
		if s.tr, err = newTranscript(cfg); err != nil {
			return Result{}, fmt.Errorf("simulator: %w", err)
		}
	}
	s.tr.start(st.Control.Status == model.LoopPending)
	if st.Control.Status == model.LoopPending {
		s.logf("/enter-recursion: the gate passes, the loop starts")
		if err := s.write("status running", true, func(st *model.State, _ *model.Facts) []model.Edit {
			return []model.Edit{model.Replace(model.P("control", "status"), string(model.LoopRunning))}
		}); err != nil {
			return s.result(), err
		}
	}
	for {
		st, err := s.waitRunnable(ctx)
		if err != nil {
			return s.result(), err
		}
		switch st.Control.Status {
		case model.LoopCompleted, model.LoopStopped:
			s.endRun()
			return s.result(), nil
		}
		if err := s.iteration(ctx, st.Control.Iteration); err != nil {
			return s.result(), err
		}
		s.tr.endIteration(st.Control.Iteration)
		done, err := s.hook()
		if done && err == nil {
			s.endRun()
		}
		if err != nil || done {
			return s.result(), err
		}
	}
}

// endRun is the session's last words when the loop ended.
func (s *simulator) endRun() {
	if !s.tr.ok() {
		return
	}
	st, err := s.read()
	switch {
	case err != nil:
	case st.Control.Status == model.LoopCompleted:
		s.tr.end("The AoT loop completed: the base_case is satisfied.")
	case st.Control.Status == model.LoopStopped:
		s.tr.end("The AoT loop stopped: " + st.Control.StopReason)
	}
}

func (s *simulator) result() Result {
	r := Result{Writes: s.writes, Paced: s.paced, Claude: s.tr.result()}
	if st, err := s.read(); err == nil {
		r.Status, r.StopReason, r.Iterations = st.Control.Status, st.Control.StopReason, st.Control.Iteration
	}
	return r
}

func (s *simulator) logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, args...)
	}
}

// read parses the state file, retrying briefly when it is caught mid-write.
func (s *simulator) read() (*model.State, error) {
	doc, err := s.readDoc()
	if err != nil {
		return nil, err
	}
	return doc.State, nil
}

func (s *simulator) readDoc() (*statefile.Document, error) {
	var lastErr error
	for i := 0; i < 20; i++ {
		doc, err := statefile.Load(s.cfg.Path, 0)
		if err == nil {
			return doc, nil
		}
		lastErr = err
		time.Sleep(10 * time.Millisecond)
	}
	return nil, lastErr
}

// write re-reads the file, plans edits on what is there now and writes
// them: in place (truncate and rewrite, as the loop's Python scripts do)
// or by temp file and rename (as its stop hook does). Right before writing
// it reads the file once more and starts over if someone (a correction)
// wrote in between, so it never overwrites what it did not read.
func (s *simulator) write(what string, inPlace bool, plan func(*model.State, *model.Facts) []model.Edit) error {
	for attempt := 0; ; attempt++ {
		doc, err := s.readDoc()
		if err != nil {
			return err
		}
		edits := plan(doc.State, model.Derive(doc.State))
		if len(edits) == 0 {
			return nil
		}
		out, err := statefile.ApplyEdits(doc, edits)
		if err != nil {
			return fmt.Errorf("simulator: %s: %w", what, err)
		}
		if _, err := statefile.Parse(out); err != nil {
			return fmt.Errorf("simulator: %s would write an unreadable file: %w", what, err)
		}
		if cur, err := os.ReadFile(s.cfg.Path); err != nil || !bytes.Equal(cur, doc.Data) {
			if attempt < 50 {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			return fmt.Errorf("simulator: %s: the file keeps changing", what)
		}
		if err := writeAsTheLoop(s.cfg.Path, out, inPlace); err != nil {
			return err
		}
		s.writes++
		if s.cfg.OnWrite != nil {
			s.cfg.OnWrite(what, out)
		}
		return nil
	}
}

// writeAsTheLoop writes data to path as the loop's tools do: in place
// (truncate and rewrite, as its Python scripts do) or to a temporary file
// renamed over it (as its stop hook does).
func writeAsTheLoop(path string, data []byte, inPlace bool) error {
	if inPlace {
		return os.WriteFile(path, data, 0o644)
	}
	tmp := fmt.Sprintf("%s.tmp.%d", path, os.Getpid())
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// sleep waits d scaled by the speed, returning early when ctx ends.
func (s *simulator) sleep(ctx context.Context, d time.Duration) error {
	s.paced += d
	t := time.NewTimer(time.Duration(float64(d) / s.cfg.Speed))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// waitRunnable returns the state once no redirect is in progress.
func (s *simulator) waitRunnable(ctx context.Context) (*model.State, error) {
	announced := false
	for {
		st, err := s.read()
		if err != nil {
			return nil, err
		}
		if !st.Control.RedirectRequested {
			if announced {
				s.logf("redirect finished: the coordinator restarts")
			}
			return st, nil
		}
		if !announced {
			s.logf("redirect requested: the loop pauses")
			announced = true
		}
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// pausable sleeps, then waits out a redirect; it reports whether the loop
// should cut the iteration short (a stop was requested or it ended).
func (s *simulator) pausable(ctx context.Context, d time.Duration) (bool, error) {
	if err := s.sleep(ctx, d); err != nil {
		return false, err
	}
	st, err := s.waitRunnable(ctx)
	if err != nil {
		return false, err
	}
	c := st.Control
	return c.StopRequested || c.Status == model.LoopStopped || c.Status == model.LoopCompleted, nil
}

// iteration is one coordinator run: take the atoms in progress plus the
// next executable ones (up to max_parallel_agents), work on them, and
// record each outcome.
func (s *simulator) iteration(ctx context.Context, it int) error {
	st, err := s.read()
	if err != nil {
		return err
	}
	f := model.Derive(st)
	var batch []string
	for _, a := range st.Atoms {
		if a.Status == model.StatusInProgress {
			batch = append(batch, a.ID)
		}
	}
	limit := st.Objective.Constraints.EffectiveMaxParallelAgents()
	for _, id := range f.Executable {
		if len(batch) >= limit {
			break
		}
		batch = append(batch, id)
	}
	s.logf("iteration %d: working on %s", it, strings.Join(batch, ", "))
	s.played++
	s.tr.beginIteration(it, batch)
	for _, id := range batch {
		if stop, err := s.pausable(ctx, 600*time.Millisecond); err != nil || stop {
			return err
		}
		if a, ok := st.Atom(id); !ok || a.Status == model.StatusPending {
			s.tr.mark(id, string(model.StatusInProgress))
		}
		before := s.writes
		if err := s.write("start "+id, true, func(st *model.State, f *model.Facts) []model.Edit {
			i, ok := f.Index[id]
			if !ok || st.Atoms[i].Status != model.StatusPending {
				return nil // deleted or changed by a correction meanwhile
			}
			return []model.Edit{model.Replace(model.P("atoms", i, "status"), string(model.StatusInProgress))}
		}); err != nil {
			return err
		}
		s.tr.done(s.writes > before)
	}
	s.tr.spawn(st, batch)
	// Workers finish one by one.
	order := slices.Clone(batch)
	s.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for k, id := range order {
		d := time.Duration(2500+s.rng.IntN(3500)) * time.Millisecond
		if s.cfg.Demo && s.played == 2 && k == len(order)-1 {
			// The demo's second iteration: its last worker asks for a
			// permission, and the loop waits for a person.
			if err := s.permissionPrompt(ctx, id); err != nil {
				return err
			}
		}
		if stop, err := s.work(ctx, d); err != nil || stop {
			return err
		}
		if err := s.finish(it, id); err != nil {
			return err
		}
	}
	if stop, err := s.pausable(ctx, 1200*time.Millisecond); err != nil || stop {
		return err
	}
	return s.contract()
}

// work waits d while the workers work, then waits out a redirect as
// pausable does. With Claude Code's records written, the wait is cut in
// steps of about a second: at each, a worker ends its tool call and
// starts the next.
func (s *simulator) work(ctx context.Context, d time.Duration) (bool, error) {
	if !s.tr.ok() {
		return s.pausable(ctx, d)
	}
	for d > 0 {
		seg := d
		if d > 1600*time.Millisecond {
			seg = time.Duration(700+s.tr.rng.IntN(800)) * time.Millisecond
		}
		if err := s.sleep(ctx, seg); err != nil {
			return false, err
		}
		if d -= seg; d > 0 {
			s.tr.step()
		}
	}
	return s.pausable(ctx, 0)
}

// permissionPrompt is the demo's worker of id asking for a permission:
// the loop waits promptWait for a person, then goes on.
func (s *simulator) permissionPrompt(ctx context.Context, id string) error {
	s.logf("  %s worker: asks for permission to run %s; the loop waits for you", id, promptCommand)
	s.tr.askPermission(id, promptCommand)
	if err := s.sleep(ctx, promptWait); err != nil {
		return err
	}
	s.tr.permitted(id)
	s.logf("  %s worker: permission given; it goes on", id)
	return nil
}

// finish applies a worker's outcome to one atom.
func (s *simulator) finish(it int, id string) error {
	st, err := s.read()
	if err != nil {
		return err
	}
	f := model.Derive(st)
	i, ok := f.Index[id]
	if !ok || st.Atoms[i].Status != model.StatusInProgress {
		// A correction deleted it or sent it back: the coordinator's
		// mark finds nothing to change.
		s.tr.workerEnds(id, id+" is no longer in progress: stopping.")
		s.tr.coordinate(id+" changed meanwhile.", markCmd(id, string(model.StatusPending)))
		s.tr.done(false)
		return nil
	}
	out, ev := s.outcomeFor(it, st, f, id)
	before := s.writes
	switch out {
	case outStall:
		s.tr.workerEnds(id, "No result: "+ev.text+".")
		s.tr.coordinate(id+" had no result: back to pending.", markCmd(id, string(model.StatusPending)))
		s.logf("  %s: no result (%s); back to pending", id, ev.text)
		err = s.write("stall "+id, true, func(st *model.State, f *model.Facts) []model.Edit {
			if i, ok := f.Index[id]; ok && st.Atoms[i].Status == model.StatusInProgress {
				return []model.Edit{model.Replace(model.P("atoms", i, "status"), string(model.StatusPending))}
			}
			return nil
		})
	case outDecompose:
		var kids []string
		for k := range ev.children {
			kids = append(kids, fmt.Sprintf("A%d", nextIDNumber(st)+k))
		}
		s.tr.workerEnds(id, "Too big for one worker: "+ev.text+".")
		s.tr.coordinate(id+" is too big: split into "+strings.Join(kids, ", ")+".",
			decomposeCmd(id, kids, ev.children, ev.text), markCmd(id, string(model.StatusPending)))
		err = s.decompose(id, ev)
	case outFailOR:
		cmds := []cmd{markCmd(id, string(model.StatusPending))}
		g := f.ORGroupOf[id]
		if grp, ok := st.ORGroup(g); ok {
			if next := nextChoice(st, f, grp, id); next != "" {
				cmds = append([]cmd{switchCmd(g, next, id+" failed: "+ev.text)}, cmds...)
			}
		}
		s.tr.workerEnds(id, "Failed: "+ev.text+".")
		s.tr.coordinate(id+" failed: "+g+" switches to its next choice.", cmds...)
		err = s.backtrack(id, ev)
	default:
		summary, arts := s.resolution(id)
		s.tr.workerEnds(id, summary+".")
		s.tr.coordinate(id+" is done.", markCmd(id, string(model.StatusResolved)), bindingCmd(id, summary, arts))
		err = s.resolve(id)
	}
	s.tr.done(s.writes > before)
	return err
}

// outcomeFor picks an outcome: the demo's script, or chance.
func (s *simulator) outcomeFor(it int, st *model.State, f *model.Facts, id string) (outcome, demoEvent) {
	if s.cfg.Demo {
		for _, ev := range demoEvents {
			if ev.it == it && ev.id == id && !(ev.out == outDecompose && s.decomposed[id]) {
				return ev.out, ev
			}
		}
		return outResolve, demoEvent{}
	}
	x := s.rng.Float64()
	if g := f.ORGroupOf[id]; g != "" {
		if grp, ok := st.ORGroup(g); ok && grp.Selected == id && nextChoice(st, f, grp, id) != "" && x < pFailOR {
			return outFailOR, demoEvent{text: "the approach did not work out"}
		}
	}
	_, isChild := f.ParentOf[id]
	switch {
	case x < pStall:
		return outStall, demoEvent{text: "the worker ran out of time"}
	case x < pStall+pDecompose && !isChild && !s.decomposed[id] && len(f.ChildrenOf[id]) == 0 && f.ORGroupOf[id] == "":
		return outDecompose, demoEvent{children: []string{"first half of " + id, "second half of " + id}, text: "too big for one worker"}
	}
	return outResolve, demoEvent{}
}

func nextChoice(st *model.State, f *model.Facts, g *model.ORGroup, failing string) string {
	for _, c := range g.Choices {
		if c != failing && !slices.Contains(g.Failed, c) {
			if _, ok := f.Index[c]; ok {
				return c
			}
		}
	}
	return ""
}

// resolution is the summary and artifacts of id's binding.
func (s *simulator) resolution(id string) (string, []string) {
	summary, ok := demoSummaries[id]
	arts := demoArtifacts[id]
	if !ok || !s.cfg.Demo {
		summary = "Resolved " + id
		arts = []string{"src/" + strings.ToLower(id) + ".go"}
	}
	return summary, arts
}

func (s *simulator) resolve(id string) error {
	summary, arts := s.resolution(id)
	s.logf("  %s: resolved", id)
	return s.write("resolve "+id, true, func(st *model.State, f *model.Facts) []model.Edit {
		i, ok := f.Index[id]
		if !ok || st.Atoms[i].Status != model.StatusInProgress {
			return nil
		}
		return append([]model.Edit{model.Replace(model.P("atoms", i, "status"), string(model.StatusResolved))},
			bindingEdits(st, id, summary, arts)...)
	})
}

// bindingEdits adds (or replaces) the binding of id.
func bindingEdits(st *model.State, id, summary string, arts []string) []model.Edit {
	flow := make(model.Flow, len(arts))
	for i, a := range arts {
		flow[i] = a
	}
	value := model.Map{{Key: "summary", Value: summary}, {Key: "artifacts", Value: flow}}
	if _, ok := st.Binding(id); ok {
		return []model.Edit{model.Replace(model.P("bindings", id), value)}
	}
	if !st.Lines.Has("bindings") {
		return []model.Edit{model.AddKey(nil, "bindings", model.Map{{Key: id, Value: value}})}
	}
	return []model.Edit{model.AddKey(model.P("bindings"), id, value)}
}

// decompose splits an atom: the parent stays pending, the children copy
// its dependencies, a decompositions entry records why (seed 000 §6.1).
func (s *simulator) decompose(id string, ev demoEvent) error {
	s.decomposed[id] = true
	s.logf("  %s: decomposed (%s)", id, ev.text)
	return s.write("decompose "+id, true, func(st *model.State, f *model.Facts) []model.Edit {
		i, ok := f.Index[id]
		if !ok {
			return nil
		}
		parent := st.Atoms[i]
		deps := make(model.Flow, len(parent.DependsOn))
		for k, d := range parent.DependsOn {
			deps[k] = d
		}
		var edits []model.Edit
		edits = append(edits, model.Replace(model.P("atoms", i, "status"), string(model.StatusPending)))
		var kids model.Flow
		next := nextIDNumber(st)
		for _, desc := range ev.children {
			cid := fmt.Sprintf("A%d", next)
			next++
			kids = append(kids, cid)
			edits = append(edits, model.Append(model.P("atoms"), model.Map{
				{Key: "id", Value: cid}, {Key: "description", Value: desc}, {Key: "status", Value: "pending"}, {Key: "depends_on", Value: deps},
			}))
		}
		entry := model.Map{{Key: "parent", Value: id}, {Key: "children", Value: kids}, {Key: "reason", Value: ev.text}}
		if st.Lines.Has("decompositions") {
			edits = append(edits, model.Append(model.P("decompositions"), entry))
		} else {
			edits = append(edits, model.AddKey(nil, "decompositions", []any{entry}))
		}
		return edits
	})
}

func nextIDNumber(st *model.State) int {
	id := model.NextAtomID(st)
	var n int
	fmt.Sscanf(id, "A%d", &n)
	return n
}

// backtrack fails the selected OR choice and switches to the next one:
// failed[] gains it, selected moves on, the trail records the switch, its
// binding goes, and its dependents now depend on the new choice (seed 000
// §5.3, §6.3).
func (s *simulator) backtrack(id string, ev demoEvent) error {
	return s.write("backtrack "+id, true, func(st *model.State, f *model.Facts) []model.Edit {
		gname := f.ORGroupOf[id]
		g, ok := st.ORGroup(gname)
		i, ok2 := f.Index[id]
		if !ok || !ok2 || g.Selected != id {
			return nil
		}
		next := nextChoice(st, f, g, id)
		if next == "" {
			return nil
		}
		s.logf("  %s failed (%s): OR group %s switches to %s", id, ev.text, gname, next)
		gp := model.P("or_groups", gname)
		edits := []model.Edit{
			model.Replace(model.P("atoms", i, "status"), string(model.StatusPending)),
			model.Replace(gp.Child("selected"), next),
		}
		if g.Lines.Has("failed") {
			edits = append(edits, model.Append(gp.Child("failed"), id))
		} else {
			edits = append(edits, model.AddKey(gp, "failed", model.Flow{id}))
		}
		if _, ok := st.Binding(id); ok {
			edits = append(edits, model.Remove(model.P("bindings", id)))
		}
		for _, d := range f.Dependents()[id] {
			j := f.Index[d]
			for k, dep := range st.Atoms[j].DependsOn {
				if dep == id {
					edits = append(edits, model.Replace(model.P("atoms", j, "depends_on", k), next))
				}
			}
		}
		entry := model.Map{{Key: "or_group", Value: gname}, {Key: "selected", Value: next},
			{Key: "reason", Value: id + " failed: " + ev.text}, {Key: "timestamp", Value: time.Now().UTC().Format(time.RFC3339)}}
		if st.Lines.Has("trail") {
			edits = append(edits, model.Append(model.P("trail"), entry))
		} else {
			edits = append(edits, model.AddKey(nil, "trail", []any{entry}))
		}
		return edits
	})
}

// contract resolves decomposed parents whose children are all resolved
// (seed 000 §6.4), and completes the loop when every atom is resolved.
func (s *simulator) contract() error {
	for {
		var parent, kidList string
		err := s.write("contract", true, func(st *model.State, f *model.Facts) []model.Edit {
			for _, a := range st.Atoms {
				kids := f.ChildrenOf[a.ID]
				if a.Status == model.StatusResolved || len(kids) == 0 {
					continue
				}
				all := true
				for _, c := range kids {
					if j, ok := f.Index[c]; !ok || st.Atoms[j].Status != model.StatusResolved {
						all = false
					}
				}
				if !all {
					continue
				}
				parent, kidList = a.ID, strings.Join(kids, ", ")
				s.logf("  %s: resolved through its children %s", a.ID, strings.Join(kids, ", "))
				return append([]model.Edit{model.Replace(model.P("atoms", f.Index[a.ID], "status"), string(model.StatusResolved))},
					bindingEdits(st, a.ID, "Completed via "+strings.Join(kids, ", "), nil)...)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if parent == "" {
			break
		}
		s.tr.coordinate(parent+" is resolved through its children "+kidList+".",
			markCmd(parent, string(model.StatusResolved)), bindingCmd(parent, "Completed via "+kidList, nil))
		s.tr.done(true)
	}
	st, err := s.read()
	if err != nil {
		return err
	}
	if allDone(st) && st.Control.Status == model.LoopRunning {
		s.logf("every atom resolved; the verifier passes the base_case: completed")
		s.tr.verify()
		before := s.writes
		err := s.write("completed", true, func(st *model.State, _ *model.Facts) []model.Edit {
			if st.Control.Status != model.LoopRunning {
				return nil
			}
			return []model.Edit{model.Replace(model.P("control", "status"), string(model.LoopCompleted))}
		})
		s.tr.done(s.writes > before)
		return err
	}
	return nil
}

// hook is the SubagentStop hook's decision at the end of an iteration,
// in its order: completed; not running; redirect; stop requested;
// iteration limit; progress and the stall limit; an empty graph; else the
// next iteration. Its writes go by temp file and rename, as the hook's do.
// It reports whether the loop ended.
func (s *simulator) hook() (bool, error) {
	st, err := s.read()
	if err != nil {
		return false, err
	}
	c := st.Control
	if c.Status == model.LoopCompleted || c.Status != model.LoopRunning {
		return true, nil
	}
	if c.RedirectRequested {
		return false, nil // paused; the next round waits for it
	}
	stop := func(reason string, extra ...model.Edit) (bool, error) {
		s.logf("stop hook: %s", reason)
		err := s.write("hook stop", false, func(st *model.State, _ *model.Facts) []model.Edit {
			edits := append([]model.Edit{model.Replace(model.P("control", "status"), string(model.LoopStopped))}, extra...)
			if reason != "" {
				if st.Control.Lines.Has("stop_reason") {
					edits = append(edits, model.Replace(model.P("control", "stop_reason"), reason))
				} else {
					edits = append(edits, model.AddKey(model.P("control"), "stop_reason", reason))
				}
			}
			return edits
		})
		return true, err
	}
	if c.StopRequested {
		reason := c.StopReason
		if reason == "" {
			reason = "Manual stop requested"
		}
		return stop(reason)
	}
	cons := st.Objective.Constraints
	if c.Iteration >= cons.EffectiveMaxIterations() {
		return stop("Max iterations reached")
	}
	f := model.Derive(st)
	unresolved := f.Counts.Unresolved()
	stall := c.StallCount + 1
	if c.PrevPendingCount < 0 || unresolved < c.PrevPendingCount {
		stall = 0
	}
	if stall >= cons.EffectiveMaxStallCount() {
		return stop("Max stall count reached", model.Replace(model.P("control", "stall_count"), stall))
	}
	if unresolved == 0 && f.Counts.Resolved == 0 {
		return stop("No atoms in Work Graph")
	}
	s.logf("stop hook: continue (unresolved %d, stall %d)", unresolved, stall)
	if stall > 0 {
		s.tr.hookSays(fmt.Sprintf("AoT iteration %d | WARNING: Stall count %d/%d - Switch strategy or decompose differently", c.Iteration+1, stall, cons.EffectiveMaxStallCount()))
	} else {
		s.tr.hookSays(fmt.Sprintf("AoT iteration %d | Unresolved: %d | Resolved: %d | Progress OK", c.Iteration+1, unresolved, f.Counts.Resolved))
	}
	return false, s.write("hook continue", false, func(st *model.State, _ *model.Facts) []model.Edit {
		edits := []model.Edit{
			model.Replace(model.P("control", "iteration"), st.Control.Iteration+1),
			model.Replace(model.P("control", "stall_count"), stall),
		}
		if st.Control.Lines.Has("prev_pending_count") {
			edits = append(edits, model.Replace(model.P("control", "prev_pending_count"), unresolved))
		} else {
			edits = append(edits, model.AddKey(model.P("control"), "prev_pending_count", unresolved))
		}
		return edits
	})
}

// Setup writes a fresh state file for a run into dir's .claude directory:
// the demo loop, or a generated one of atoms atoms.
func Setup(dir string, atoms int, seed uint64) (string, error) {
	path := filepath.Join(dir, statefile.AoTStateRel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	data := []byte(DemoState)
	if atoms > 0 {
		data = gen.Generate(gen.Options{Atoms: atoms, Seed: seed, ORGroups: atoms / 25, Decompositions: atoms / 40, Status: "pending"})
	}
	if _, err := os.Stat(path); err == nil {
		return "", errors.New(path + " already exists; the simulator will not overwrite a loop")
	}
	return path, os.WriteFile(path, data, 0o644)
}

// allDone reports whether every atom is resolved, apart from OR choices
// that are not selected (a failed or unused alternative stays pending).
func allDone(st *model.State) bool {
	f := model.Derive(st)
	return f.Counts.Total > 0 && f.Outstanding == 0
}
