package main

import (
	"bytes"
	"errors"
	"io/fs"
	"time"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/history"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/spf13/cobra"
)

// fileFlag is the -f PATH flag shared by the one-shot commands; a single
// positional PATH is accepted as well.
type fileFlag struct{ path string }

func (f *fileFlag) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&f.path, "file", "f", "", "state file or project directory (default: current directory)")
}

func (f *fileFlag) resolve(args []string) (string, error) {
	switch {
	case len(args) > 1:
		return "", fail(exitUsage, "expected at most one PATH, got %d", len(args))
	case len(args) == 1 && f.path != "" && args[0] != f.path:
		return "", fail(exitUsage, "give the state file either as -f PATH or as PATH, not both")
	case len(args) == 1:
		return args[0], nil
	}
	return f.path, nil
}

// loaded is a state file read for a one-shot command: exactly one of AoT
// and Phase is set, unless ParseErr says why neither could be read.
type loaded struct {
	Target   statefile.Target
	AoT      *statefile.Document
	Facts    *model.Facts
	Phase    *model.PhaseLoop
	ParseErr error
	// Gone are the atoms in progress in an earlier version (status reads
	// the loop's journal for them) and gone now; while goneCh is
	// set they are still being read: read them through gone, which waits.
	Gone   []model.Gone
	goneCh chan []model.Gone
	// journal is the loop's journal status reads them from ("": none),
	// found before the file is read (loadFacts with a journalDirFlag);
	// tailCh, when set, has its tail, read while the file is parsed.
	journal string
	tailCh  chan *history.Tail
	// act is what Claude Code recorded of the loop's sessions (status
	// reads it unless --no-activity: readActivity, activity.go).
	act       *agent.Activity
	actCh     chan *agent.Activity
	actSince  time.Time
	actNotes  []string
	actPrices *agent.Prices
	// loopRead, when set, waits for AoT.State.LoopRead, which is being
	// made on another core (loadFacts without derive): read it through
	// waitLoopRead.
	loopRead func()
}

// waitLoopRead returns once l.AoT.State.LoopRead is set (see loopRead);
// any number of goroutines may call it.
func (l *loaded) waitLoopRead() {
	if l.loopRead != nil {
		l.loopRead()
	}
}

// readTail starts reading the tail of l's journal on another core while
// the file (data) is parsed, when its bytes say the loop runs: only a
// running loop's tail is read. The bytes are a hint; the parsed state
// decides (Tail.Gone), and readGone reads the tail itself for a running
// loop whose bytes did not start it here.
func (l *loaded) readTail(data []byte) {
	if !bytes.Contains(data, []byte("status: "+model.LoopRunning)) {
		return
	}
	ch := make(chan *history.Tail, 1)
	journal := l.journal
	go func() { ch <- history.ReadTail(journal) }()
	l.tailCh = ch
}

// readGone starts reading, on another core, the journal of an AoT state
// file (the newest of its journals: in the journal directory, or one an
// older aot-tui kept beside it; loadFacts found it) for the atoms in
// progress before and gone now (see history.GoneFromJournal): status
// writes the atoms meanwhile.
func (l *loaded) readGone() {
	if l.AoT == nil || l.journal == "" {
		return
	}
	ch := make(chan []model.Gone, 1)
	doc, journal, tailCh := l.AoT, l.journal, l.tailCh
	go func() {
		if tailCh != nil {
			ch <- (<-tailCh).Gone(doc)
			return
		}
		ch <- history.GoneFromJournal(journal, doc)
	}()
	l.goneCh = ch
}

// gone is l.Gone, once readGone has read it.
func (l *loaded) gone() []model.Gone {
	if l.goneCh != nil {
		l.Gone, l.goneCh = <-l.goneCh, nil
	}
	return l.Gone
}

// load is resolve then the package's load: the state file the arguments
// (or -f) name, read.
func (f *fileFlag) load(args []string, g *globalFlags) (*loaded, error) {
	path, err := f.resolve(args)
	if err != nil {
		return nil, err
	}
	return load(path, g)
}

// exitCodeOf is the exit code of an error met reading, planning or
// writing a state file, the same whichever command meets it:
//
//   - exitInvalid: the bytes do not parse as a state file (a YAML or
//     frontmatter error, with its line), or a correction is refused (it
//     would break a rule, the file fails validation, an atom is in
//     progress, the YAML there cannot be rewritten exactly);
//   - exitConflict: the file kept changing, a correction was lost to a
//     loop write, or a loop write was kept beside the file;
//   - exitStale: the file is no longer the version --expect-sha256 names;
//   - exitUsage: everything else: the file is missing, unreadable, not a
//     file, or larger than --max-size (nothing is wrong with it: the limit
//     is the caller's to raise).
func exitCodeOf(err error) int {
	var ref *model.Refusal
	switch {
	case errors.Is(err, statefile.ErrTooLarge):
		return exitUsage
	case errors.Is(err, correction.ErrNotPreviewed):
		return exitStale
	case errors.As(err, &ref):
		return exitInvalid
	case errors.Is(err, statefile.ErrConflict), errors.Is(err, correction.ErrLost):
		return exitConflict
	}
	if _, ok := statefile.ParseError(err); ok {
		return exitInvalid
	}
	return exitUsage
}

// discover finds the state file path names (statefile.Discover). Finding
// none, or failing to look, is a usage error (exit 2); where there is
// none, the message says to point what names it on the command line (-f;
// "it", a PATH) at a state file or a project directory.
func discover(path, what string) (statefile.Target, error) {
	t, err := statefile.Discover(path)
	switch {
	case errors.Is(err, statefile.ErrNotFound):
		return t, fail(exitUsage, "%v — point %s at a state file or a project directory", err, what)
	case err != nil:
		return t, fail(exitUsage, "%v", err)
	}
	return t, nil
}

// load discovers and reads the state file. I/O problems (a missing file, a
// permission error, a file over --max-size) are returned as usage errors
// (exit 2); a file that exists but cannot be parsed comes back in ParseErr.
func load(path string, g *globalFlags) (*loaded, error) { return loadFacts(path, g, true, nil) }

// loadFacts is load, leaving Facts nil unless derive (status --json
// derives them on another core while it writes the atoms); without
// derive, the State's LoopRead is made on another core too, and
// l.waitLoopRead waits for it (statefile.LoadLoopReadLater). With jd,
// the loop's journal is looked for first (l.journal, for readGone): when
// there is one, the Document remembers what parsing the journal's
// versions from it needs (statefile.LoadReparse), for a version parsed
// whole (a 10,000-atom loop's) cost more than the rest of status.
func loadFacts(path string, g *globalFlags, derive bool, jd *journalDirFlag) (*loaded, error) {
	t, err := discover(path, "-f")
	if err != nil {
		return nil, err
	}
	l := &loaded{Target: t}
	if jd != nil && t.Kind != statefile.KindPhaseLoop {
		l.journal = history.NewestJournal(jd.journals(t.Path))
	}
	if t.Kind == statefile.KindPhaseLoop {
		l.Phase, err = statefile.LoadPhaseLoop(t.Path, g.maxSize)
	} else {
		switch {
		case l.journal != "":
			l.AoT, err = statefile.LoadReparse(t.Path, g.maxSize, l.readTail)
		case derive:
			l.AoT, err = statefile.Load(t.Path, g.maxSize)
		default:
			l.AoT, l.loopRead, err = statefile.LoadLoopReadLater(t.Path, g.maxSize)
		}
		if err == nil && derive {
			l.Facts = model.Derive(l.AoT.State)
		}
	}
	if err != nil {
		if exitCodeOf(err) == exitInvalid {
			l.ParseErr = err
			return l, nil
		}
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, statefile.ErrTooLarge) {
			return nil, fail(exitCodeOf(err), "%v", err)
		}
		return nil, fail(exitCodeOf(err), "reading %s: %v", t.Path, err)
	}
	return l, nil
}
