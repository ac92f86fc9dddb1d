package fleet

import (
	"context"
	"time"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/model"
)

// The fleet's view of the loops' Claude Code sessions (Options.Activity):
// one goroutine reads them all, on two shared clocks, with an
// agent.Reader per AoT loop (each transcript read from where the last
// read ended, nothing read twice):
//
//   - every Options.Watch.Poll (2 s): a stat of each loop's hook events
//     file (agent.HookEventsFile), read again when it changed, and then
//     that loop's transcripts; the loops whose session waits for a person
//     have their transcripts read on this clock too, so that the wait
//     clears within it once the session moves on;
//   - every Options.ActivityEvery (10 s): every loop's transcripts, for
//     what was appended (the tokens, the cost, what runs now, a question
//     tool waiting for its answer), and every Options.ActivityDiscover
//     (60 s) a look for new sessions and sub-agents as well.
//
// A needs-you the hook records shows within 2 s; one only the transcript
// tells (no hook installed) within 10 s. Fifty idle loops cost fifty
// stats every 2 s and a stat of each followed transcript every 10 s.

// actLoop is one loop's reading, owned by the activity goroutine.
type actLoop struct {
	t     *tracked
	r     *agent.Reader
	o     agent.Options
	notes []string
	state *model.State
	// discovered is when the reader last looked for new sessions.
	discovered time.Time
	// waiting: the last report says a session waits for a person.
	waiting bool
}

// addActivity hands a new AoT loop to the activity goroutine.
func (w *Watcher) addActivity(t *tracked) {
	if w.opts.Activity == nil || t.loop.Target.Kind.String() != "aot-loop" {
		return
	}
	w.mu.Lock()
	w.actNew = append(w.actNew, t)
	w.mu.Unlock()
	kick(w.actWake)
}

// runActivity is the activity goroutine: it reads each new loop's
// sessions once, then follows them all on the two clocks.
func (w *Watcher) runActivity(ctx context.Context) {
	defer w.wg.Done()
	loops := map[*tracked]*actLoop{}
	hooks := time.NewTicker(w.opts.Watch.Poll)
	defer hooks.Stop()
	slow := time.NewTicker(w.opts.ActivityEvery)
	defer slow.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.actWake:
			w.mu.Lock()
			fresh := w.actNew
			w.actNew = nil
			w.mu.Unlock()
			for _, t := range fresh {
				if ctx.Err() != nil {
					return
				}
				if loops[t] != nil {
					continue
				}
				o, notes, ok := w.opts.Activity(t.loop.Target.Path)
				if !ok {
					continue
				}
				a := &actLoop{t: t, o: o, notes: notes, r: agent.NewReader(ctx, o)}
				loops[t] = a
				w.readActivity(a, true, true)
			}
		case <-hooks.C:
			for t, a := range loops {
				if w.gone(t) {
					delete(loops, t)
					continue
				}
				if told := a.r.Hooks(); told || a.waiting {
					w.readActivity(a, false, told)
				}
			}
		case <-slow.C:
			for t, a := range loops {
				if w.gone(t) {
					delete(loops, t)
					continue
				}
				w.readActivity(a, time.Since(a.discovered) >= w.opts.ActivityDiscover, false)
			}
		}
	}
}

// gone reports whether t's loop is no longer followed.
func (w *Watcher) gone(t *tracked) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return t.stopped
}

// readActivity reads what a's sessions appended (with discover, their new
// files too) and, when anything was read (or news is true: the hook
// events were read just before), publishes the loop's row with the new
// report.
func (w *Watcher) readActivity(a *actLoop, discover, news bool) {
	w.mu.Lock()
	st := a.t.state
	w.mu.Unlock()
	if st != nil && st != a.state {
		a.state = st
		ids := make([]string, len(st.Atoms))
		for i := range st.Atoms {
			ids[i] = st.Atoms[i].ID
		}
		a.r.SetAtoms(ids)
	}
	if discover {
		a.discovered = time.Now()
	}
	w.actReads.Add(1)
	if !a.r.Read(discover) && !news {
		return
	}
	rep := agent.NewReport(a.r.Activity(), a.o.Prices, a.o.Since, a.notes)
	a.waiting = rep.NeedsYou != nil
	w.setActivity(a.t, rep)
}

// setActivity gives t's row the report rep and publishes it (a row not
// published yet gets it when it is).
func (w *Watcher) setActivity(t *tracked, rep *agent.Report) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if t.stopped {
		return
	}
	t.act = rep
	row, ok := w.rows[t.loop.Target.Path]
	if !ok {
		return
	}
	row = WithActivity(row, rep)
	w.rows[row.Path] = row
	w.pending[row.Path] = row
	w.updates.Add(1)
	kick(w.notify)
}
