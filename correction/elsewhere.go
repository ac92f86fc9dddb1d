package correction

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// A session on a file of another machine. The person's forms and
// previews work here, on the versions of the file streamed from there
// (Elsewhere.Latest: `aot-tui cat --follow`); apply runs the correction
// there, with `aot-tui redirect … --json --expect-sha256 <the version
// previewed> --timestamp <the preview's time>`: on that version the write
// is exactly the preview's bytes, on any other nothing is written (exit
// 4) and the session plans again on the version the stream brings. The
// write protocol, the guard after the write and the journal are that
// machine's aot-tui's (docs/stream.md).
//
// What stays on this machine: the session's list of corrections and their
// inverses, for undo (an undo runs `redirect undo --index N` there, on
// the version its preview was planned on, with the inverse made there from
// that machine's journal: the same versions, so the same bytes). What
// does not: the TUI's own guard (the far side guards for its --guard) and
// the pause, which a form takes there through Elsewhere.Hold.

// Elsewhere is the machine a session's file is on when it is not this
// one (Options.Elsewhere).
type Elsewhere interface {
	// Name names the machine in messages ("gpu").
	Name() string
	// Latest is the last version of the file streamed from there (nil
	// before the first), and a channel closed when another comes.
	Latest() (data []byte, next <-chan struct{})
	// Run runs aot-tui there with args (the file is named in them) and
	// returns what it wrote to its standard output. err is set when it
	// exited non-zero or could not be run, with the reason in one line;
	// the output of a failed command still comes back (its --json error).
	Run(ctx context.Context, args []string) (stdout []byte, err error)
	// Hold runs aot-tui there with args for as long as the returned
	// stop is not called, calls onLine with each line it writes and ended
	// once when it ends (err: why, when it failed); stop closes its
	// standard input, which ends it, and waits for it (ctx bounds the
	// wait).
	Hold(args []string, onLine func([]byte), ended func(error)) (stop func(ctx context.Context) error, err error)
}

// RemoteTimeout bounds one command run on the file's machine.
const RemoteTimeout = 30 * time.Second

// remoteCatchUp is how long an apply refused because the file moved on
// waits for the stream to bring the version the far side holds.
const remoteCatchUp = 3 * time.Second

// previewElsewhere plans req on the last version streamed from the file's
// machine. The flag is never cleared with the write: the far side's
// redirect leaves it as it is (the pause taken there ends when the form
// closes).
func (s *Session) previewElsewhere(req model.Request, note string, now time.Time, replanned bool) (*Preview, error) {
	e := s.opts.Elsewhere
	s.mu.Lock()
	paused := s.pausedSum
	s.pausedSum = ""
	s.mu.Unlock()
	if paused != "" {
		// The pause this form took there wrote the file: plan on that
		// version, not the one before it (which the far side would refuse
		// as stale), once the stream brings it.
		s.awaitLatest(paused, remoteCatchUp)
	}
	data, _ := e.Latest()
	if data == nil {
		return nil, fmt.Errorf("no version of %s that parses has come from %s (not yet, or it is gone or invalid there); preview again when one has", termtext.Line(s.path), termtext.Line(e.Name()))
	}
	pl := &planner{req: req, ctx: model.PlanContext{Now: now, Note: note, Interrupt: true}}
	res, err := statefile.Plan(s.path, data, pl.planFunc())
	if err != nil {
		return nil, err
	}
	// The diff names the machine with the path: what is written is
	// written there.
	p := &Preview{Plan: pl.plan, Base: res.Before, After: res.After, Diff: statefile.UnifiedDiff(e.Name()+":"+s.path, res.Before, res.After),
		Replanned: replanned, pl: pl, res: res}
	s.mu.Lock()
	if s.hold != nil && s.flagOurs {
		p.releasesOn = e.Name()
	}
	s.mu.Unlock()
	return p, nil
}

// remoteOut is what `redirect … --json` prints: the correction written,
// or the CLI's error object.
type remoteOut struct {
	Reapplied   int    `json:"reapplied"`
	Merged      int    `json:"merged"`
	AfterSHA256 string `json:"after_sha256"`
	// The error object (exit_code set): kind "stale" with the version the
	// file holds (sha256).
	Error    string `json:"error"`
	ExitCode int    `json:"exit_code"`
	Kind     string `json:"kind"`
	SHA256   string `json:"sha256"`
}

// applyElsewhere writes p on the file's machine.
func (s *Session) applyElsewhere(p *Preview) ApplyResult {
	e := s.opts.Elsewhere
	undone := s.undoneEntry(p)
	args, err := RemoteArgs(s.path, p, undone)
	if err != nil {
		return ApplyResult{Err: err}
	}
	// The watcher reports our write as it streams back: ours.
	s.remember(p.After)
	ctx, cancel := context.WithTimeout(context.Background(), RemoteTimeout)
	defer cancel()
	stdout, runErr := e.Run(ctx, args)
	var out remoteOut
	if jerr := json.Unmarshal(bytes.TrimSpace(stdout), &out); jerr != nil {
		if runErr == nil {
			runErr = fmt.Errorf("unreadable answer (%v): is aot-tui there the right program?", jerr)
		}
		return ApplyResult{Err: fmt.Errorf("%v: nothing is known to be written", failedThere("on %s", e, runErr))}
	}
	switch {
	case out.ExitCode == exitStale || out.Kind == "stale":
		// The loop wrote the file since the version previewed: plan
		// again on the version the far side holds, once the stream brings
		// it (on what it brought, if it is late).
		s.awaitLatest(out.SHA256, remoteCatchUp)
		again, err := s.previewElsewhere(p.pl.req, p.pl.ctx.Note, p.pl.ctx.Now, true)
		if err != nil {
			return ApplyResult{Err: err}
		}
		again.pl.undoes = p.pl.undoes
		return ApplyResult{Replanned: again}
	case out.ExitCode != 0:
		return ApplyResult{Err: &ElsewhereError{Host: e.Name(), Code: out.ExitCode, Msg: out.Error}}
	case runErr != nil:
		return ApplyResult{Err: failedThere("on %s", e, runErr)}
	}
	a := &applied{Applied: Applied{Summary: p.pl.plan.Summary, Correction: p.pl.plan.Correction, Undoes: p.pl.undoes}}
	a.inv, a.invErr = inverseOfWrite(p.res)
	if out.Reapplied == 0 && out.Merged == 0 && out.AfterSHA256 != statefile.Sum(p.After) {
		// Cannot happen on the version previewed, short of a different
		// aot-tui there: say so rather than keep an inverse of bytes
		// that were not written.
		a.invErr = fmt.Errorf("%s wrote other bytes than the preview's (sha256 %s, not %s): undo it there (aot-tui redirect undo)",
			termtext.Line(e.Name()), short(out.AfterSHA256), short(statefile.Sum(p.After)))
	}
	s.mu.Lock()
	a.ID = len(s.applied) + 1
	s.applied = append(s.applied, a)
	if u := s.find(p.pl.undoes); u != nil {
		u.UndoneBy = a.ID
	}
	release := s.hold != nil && s.flagOurs
	if release {
		// Written: the form is done, and the pause it took there ends,
		// as a session here clears the flag with the write.
		s.flagOurs, s.flagWant = false, false
	}
	s.mu.Unlock()
	res := ApplyResult{Plan: p.pl.plan, ID: a.ID, Merged: out.Merged}
	if release {
		res.Follow = s.q.add(func() Result { return s.syncElsewhere(false) })
	}
	return res
}

// exitStale is the CLI's exit code of a correction refused because the
// file is not the version previewed (--expect-sha256).
const exitStale = 4

// ElsewhereError is a correction the file's machine refused or failed:
// its aot-tui's exit code and one-line message.
type ElsewhereError struct {
	Host string
	Code int
	Msg  string
}

func (e *ElsewhereError) Error() string {
	return fmt.Sprintf("on %s: %s", termtext.Line(e.Host), termtext.Line(e.Msg))
}

// failedThere is err of a command run on e, in one line after what was
// being done there (a format naming the machine: "pausing the loop on
// %s"); a command that ran out of RemoteTimeout says so.
func failedThere(what string, e Elsewhere, err error) error {
	why := err.Error()
	if errors.Is(err, context.DeadlineExceeded) {
		why = fmt.Sprintf("no answer in %v", RemoteTimeout)
	}
	return fmt.Errorf(what+": %s", termtext.Line(e.Name()), termtext.Line(why))
}

// awaitLatest waits up to d for the stream to bring the version whose
// sha256 is want.
func (s *Session) awaitLatest(want string, d time.Duration) {
	end := time.NewTimer(d)
	defer end.Stop()
	for {
		data, next := s.opts.Elsewhere.Latest()
		if data != nil && strings.EqualFold(statefile.Sum(data), want) {
			return
		}
		select {
		case <-next:
		case <-end.C:
			return
		case <-s.closing:
			return
		}
	}
}

// undoneEntry is the 1-based position, in the version p was planned on,
// of the corrections[] entry the undo p undoes (0: p is not an undo of
// this session's).
func (s *Session) undoneEntry(p *Preview) int {
	if p.pl.undoes == 0 || p.res == nil || p.res.Doc == nil {
		return 0
	}
	s.mu.Lock()
	a := s.find(p.pl.undoes)
	s.mu.Unlock()
	if a == nil || a.Correction == nil {
		return 0
	}
	entries := p.res.Doc.State.Corrections
	for i := len(entries) - 1; i >= 0; i-- {
		c := entries[i]
		if c.Timestamp == a.Correction.Timestamp && c.Type == a.Correction.Type && c.Description == a.Correction.Description {
			return i + 1
		}
	}
	return 0
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12] + "…"
	}
	return sum
}

// RemoteArgs are the arguments of the aot-tui command that writes p on
// the file at path, on the machine it is on: the CLI command of p's
// request with its values, --json, --expect-sha256 of the version p was
// planned on and --timestamp of its correction, --interrupt when p
// interrupts workers (the person agreed to the ones its preview named).
// undone is the position of the corrections[] entry an undo undoes, in
// that version. An error names what the command line cannot carry.
func RemoteArgs(path string, p *Preview, undone int) ([]string, error) {
	more := []string{"--file=" + path, "--json", "--expect-sha256=" + statefile.Sum(p.Base),
		"--timestamp=" + p.pl.ctx.Now.UTC().Format(time.RFC3339Nano)}
	if _, stop := p.pl.req.(model.Stop); p.pl.ctx.Note != "" && !stop {
		// (A stop records no corrections[] entry to note it in.)
		more = append(more, "--note="+p.pl.ctx.Note)
	}
	if p.Plan != nil && len(p.Plan.Interrupts) > 0 {
		more = append(more, "--interrupt")
	}
	return RequestArgs(p.pl.req, undone, more...)
}

// ErrNoCommand is wrapped by RequestArgs's error for a request the
// command line cannot carry.
var ErrNoCommand = errors.New("no aot-tui command writes it")

// RequestArgs is req as aot-tui's command line ("redirect", "add-atom",
// …), its values as flags and arguments (a value that starts with "-"
// is given after "--" or as --flag=value, never taken for a flag).
// undone is the corrections[] position an undo names (--index); more
// are flags to add (before the arguments).
func RequestArgs(req model.Request, undone int, more ...string) ([]string, error) {
	var args, pos []string
	flag := func(name, v string) { args = append(args, "--"+name+"="+v) }
	ids := func(name string, list []string) error {
		for _, id := range list {
			if id == "" || strings.ContainsAny(id, ", \t\n") {
				return fmt.Errorf("the atom id %q cannot be given on aot-tui's command line (%s takes them comma-separated): %w", id, name, ErrNoCommand)
			}
		}
		if len(list) > 0 {
			flag(name, strings.Join(list, ","))
		}
		return nil
	}
	optional := func(name string, v *string) {
		if v != nil {
			flag(name, *v)
		}
	}
	switch r := req.(type) {
	case model.AddAtom:
		args = []string{"redirect", "add-atom"}
		if r.ID != "" {
			flag("id", r.ID)
		}
		if err := ids("depends-on", r.DependsOn); err != nil {
			return nil, err
		}
		if r.ORGroup != "" {
			flag("or-group", r.ORGroup)
		}
		if err := ids("required-by", r.RequiredBy); err != nil {
			return nil, err
		}
		pos = []string{r.Description}
	case model.DeleteAtom:
		args = []string{"redirect", "delete-atom"}
		if r.Detach {
			args = append(args, "--detach")
		}
		pos = []string{r.ID}
	case model.ForceOR:
		args = []string{"redirect", "force-or"}
		if r.Reason != "" {
			flag("reason", r.Reason)
		}
		pos = []string{r.Group, r.Choice}
	case model.ChangeConstraints:
		args = []string{"redirect", "constraints"}
		for _, c := range []struct {
			name string
			v    *int
		}{{"max-iterations", r.MaxIterations}, {"max-parallel-agents", r.MaxParallelAgents}, {"max-stall-count", r.MaxStallCount}} {
			if c.v != nil {
				flag(c.name, strconv.Itoa(*c.v))
			}
		}
	case model.ChangeObjective:
		args = []string{"redirect", "objective"}
		optional("goal", r.Goal)
		optional("background-intent", r.BackgroundIntent)
		optional("deliverables", r.Deliverables)
		optional("definition-of-done", r.DefinitionOfDone)
		if len(r.Checks) > 1 {
			return nil, fmt.Errorf("%d base_case edits in one objective change: %w (it takes one)", len(r.Checks), ErrNoCommand)
		}
		for _, c := range r.Checks {
			switch c.Op {
			case "set":
				flag("check", c.Path.String())
				flag("type", string(c.Type))
				flag("value", c.Value)
				if c.Item != "" {
					flag("item", c.Item)
				}
			case "add":
				flag("add-item", c.Item)
				if len(c.Path) > 0 {
					flag("under", c.Path.String())
				}
				flag("type", string(c.Type))
				flag("value", c.Value)
			case "remove":
				flag("remove-item", c.Path.String())
			default:
				return nil, fmt.Errorf("the base_case edit %q: %w", c.Op, ErrNoCommand)
			}
		}
	case model.OverrideBinding:
		args = []string{"redirect", "override-binding"}
		if r.Redo {
			args = append(args, "--redo")
		}
		optional("summary", r.Summary)
		if r.SetArtifacts {
			if len(r.Artifacts) == 0 {
				flag("artifacts", "")
			}
			for _, a := range r.Artifacts {
				flag("artifact", a)
			}
		}
		pos = []string{r.ID}
	case model.Stop:
		args = []string{"stop"}
		if r.Reason != "" {
			flag("reason", r.Reason)
		}
	case *model.Undo:
		if r.Of == nil {
			return nil, fmt.Errorf("taking back a stop: %w on another machine (clear control.stop_requested there)", ErrNoCommand)
		}
		if undone < 1 {
			return nil, fmt.Errorf("the correction undone is not in the version previewed: %w", ErrNoCommand)
		}
		args = []string{"redirect", "undo"}
		flag("index", strconv.Itoa(undone))
	default:
		return nil, fmt.Errorf("a %s correction: %w", req.Kind(), ErrNoCommand)
	}
	args = append(args, more...)
	if len(pos) > 0 {
		args = append(append(args, "--"), pos...)
	}
	return args, nil
}

// HoldLine is a line `aot-tui pause --hold` writes (see cmd's pause.go):
// kind "paused" once the pause is taken (or could not be: error), then
// "released" when its standard input closed and it let the pause go.
type HoldLine struct {
	V     int    `json:"v"`
	Kind  string `json:"kind"`
	Set   bool   `json:"set"`
	Wrote bool   `json:"wrote"`
	Held  int    `json:"held"`
	// SHA256 is the version the flag's write left (when wrote), which
	// the stream brings back: this session's own write.
	SHA256 string `json:"sha256,omitempty"`
	Error  string `json:"error,omitempty"`
}

// rememberElsewhere notes a version the file's machine wrote for this
// session (its pause), by its sha256 in hex.
func (s *Session) rememberElsewhere(sum string) {
	b, err := hex.DecodeString(sum)
	if err != nil || len(b) != sha256.Size {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.oursElsewhere = append(s.oursElsewhere, [sha256.Size]byte(b))
	if len(s.oursElsewhere) > 6 {
		s.oursElsewhere = s.oursElsewhere[len(s.oursElsewhere)-6:]
	}
}

// holding is the pause a form of this session holds on the file's
// machine: the `aot-tui pause --hold` running there, and its lines.
type holding struct {
	stop  func(ctx context.Context) error
	lines chan HoldLine
	ended chan error
}

// syncElsewhere takes the pause on the file's machine while a form is
// open (want) and lets it go when it closes: `aot-tui pause --hold` runs
// there for as long, and sets redirect_requested there with that
// machine's leases and rules, as a form of an aot-tui of its own would.
// A session whose Elsewhere cannot hold takes no pause.
func (s *Session) syncElsewhere(want bool) FlagResult {
	e := s.opts.Elsewhere
	s.mu.Lock()
	h, form := s.hold, s.form
	s.mu.Unlock()
	switch {
	case want && h == nil:
		if form == "" {
			form = "form"
		}
		h = &holding{lines: make(chan HoldLine, 4), ended: make(chan error, 1)}
		stop, err := e.Hold([]string{"pause", "--hold", "--json", "--file=" + s.path, "--form=" + form}, func(line []byte) {
			var l HoldLine
			if json.Unmarshal(line, &l) != nil || l.Kind == "" {
				return
			}
			select {
			case h.lines <- l:
			default:
			}
		}, func(err error) {
			h.ended <- err
			s.mu.Lock()
			if s.hold == h {
				// It ended while the form is open (the link went, the
				// process was killed there): that machine let the pause
				// go; the next version that shows it is taken again
				// (checkFlag).
				s.hold, s.holdLost = nil, true
			}
			s.mu.Unlock()
		})
		if err != nil {
			return s.flagFailed(true, failedThere(pausing, e, err))
		}
		h.stop = stop
		select {
		case l := <-h.lines:
			s.rememberElsewhere(l.SHA256)
			if l.Kind != "paused" || l.Error != "" {
				_ = stop(context.Background())
				why := l.Error
				if why == "" {
					why = fmt.Sprintf("it answered %q, not paused", l.Kind)
				}
				return s.flagFailed(true, failedThere(pausing, e, errors.New(why)))
			}
			s.mu.Lock()
			s.hold, s.flagWritten = h, l.Set
			if l.Wrote {
				s.pausedSum = l.SHA256
			}
			s.mu.Unlock()
			return FlagResult{Set: true, Wrote: l.Wrote, Held: l.Held}
		case err := <-h.ended:
			if err == nil {
				err = errors.New("it ended without a word")
			}
			return s.flagFailed(true, failedThere(pausing, e, err))
		case <-time.After(RemoteTimeout):
			_ = stop(context.Background())
			return s.flagFailed(true, failedThere(pausing, e, context.DeadlineExceeded))
		}
	case !want && h != nil:
		s.mu.Lock()
		s.hold = nil
		s.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), RemoteTimeout)
		defer cancel()
		err := h.stop(ctx)
		r := FlagResult{Set: false}
		// Its "released" line, if it wrote one: the lines it wrote
		// before it ended are in h.lines, and this is their only reader.
		for len(h.lines) > 0 {
			if l := <-h.lines; l.Kind == "released" {
				s.rememberElsewhere(l.SHA256)
				r.Wrote, r.Held = l.Wrote, l.Held
				if l.Error != "" {
					r.Err = failedThere(lettingGo, e, errors.New(l.Error))
				}
				return r
			}
		}
		if err != nil {
			r.Err = failedThere(lettingGo, e, err)
		}
		return r
	}
	return FlagResult{Set: want}
}

// What syncElsewhere's errors say was being done (failedThere).
const (
	pausing   = "pausing the loop on %s"
	lettingGo = "letting the loop on %s go"
)

// clearElsewhere clears a redirect_requested no aot-tui form holds on the
// file's machine (ClearForeignFlag): `aot-tui pause --clear` there.
func (s *Session) clearElsewhere() FlagResult {
	e := s.opts.Elsewhere
	ctx, cancel := context.WithTimeout(context.Background(), RemoteTimeout)
	defer cancel()
	out, err := e.Run(ctx, []string{"pause", "--clear", "--json", "--file=" + s.path})
	var l HoldLine
	if jerr := json.Unmarshal(bytes.TrimSpace(out), &l); jerr == nil && l.Kind != "" {
		if l.Error != "" {
			return FlagResult{Err: failedThere("on %s", e, errors.New(l.Error))}
		}
		s.rememberElsewhere(l.SHA256)
		return FlagResult{Wrote: l.Wrote}
	}
	if err == nil {
		err = errors.New("no answer")
	}
	return FlagResult{Err: failedThere("on %s", e, err)}
}
