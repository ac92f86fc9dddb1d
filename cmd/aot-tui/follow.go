package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/internal/jsonstream"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/spf13/cobra"
)

// The streams another machine's aot-tui reads through ssh (or docker
// exec, kubectl exec): `status --scan DIR... --json --follow`, the fleet
// (this file), and `cat --follow PATH`, one state file's bytes (cat.go).
// Each is newline-delimited JSON, one object a line, each with the
// stream's schema version "v" and a "kind"; docs/stream.md is the schema
// and what a reader may rely on. A stream runs until its stdin closes
// (the link went) or it is signalled (SIGINT, SIGTERM, SIGHUP; Ctrl-C on
// Windows), and then exits 0.

// streamSchema is the "v" of every line of the streams. It is raised
// when a line changes in a way that breaks a reader of the previous one
// (docs/stream.md says what does not).
const streamSchema = 1

// defaultHeartbeat is how long a stream stays silent before it writes a
// heartbeat line: a reader that hears nothing for several of them knows
// the link is dead rather than the loops quiet.
const defaultHeartbeat = 15 * time.Second

// followFlags are --follow and --heartbeat.
type followFlags struct {
	on        bool
	heartbeat time.Duration
}

func (f *followFlags) register(cmd *cobra.Command, what string) {
	cmd.Flags().BoolVar(&f.on, "follow", false, what+" (docs/stream.md); ends when stdin closes or on SIGINT, SIGTERM, SIGHUP, exit 0")
	cmd.Flags().DurationVar(&f.heartbeat, "heartbeat", defaultHeartbeat, "with --follow: write a heartbeat line after this long without another line (0: never)")
}

// check refuses --heartbeat without --follow, and a negative one.
func (f *followFlags) check(cmd *cobra.Command) error {
	switch {
	case cmd.Flags().Changed("heartbeat") && !f.on:
		return fail(exitUsage, "--heartbeat goes with --follow")
	case f.heartbeat < 0:
		return fail(exitUsage, "--heartbeat must be 0 (never) or more, not %v", f.heartbeat)
	}
	return nil
}

// streamContext is done when the stream is to end: on SIGINT, SIGTERM or
// SIGHUP, or when in, the command's stdin, closes — when it is a pipe or
// a socket (what ssh, docker exec -i and kubectl exec -i give the
// command), or a reader of the caller's (tests). A terminal, /dev/null or
// a file is not a link that can close: the stream then ends on a signal
// alone (a service started with no stdin keeps streaming). What arrives
// on stdin is read and dropped. stop releases the signals; the goroutine
// that reads stdin ends when stdin closes.
func streamContext(in io.Reader) (ctx context.Context, stop context.CancelFunc) {
	ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	if endsWithStdin(in) {
		go func() {
			_, _ = io.Copy(io.Discard, in)
			stop()
		}()
	}
	return ctx, stop
}

// endsWithStdin reports whether a stream on stdin in ends when in
// closes (see streamContext).
func endsWithStdin(in io.Reader) bool {
	f, ok := in.(*os.File)
	if !ok {
		return in != nil
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0
}

// streamWriter writes a stream's lines, each in one write, and keeps its
// heartbeat: a line of kind "heartbeat" after the interval without
// another line.
type streamWriter struct {
	w     io.Writer
	every time.Duration
	timer *time.Timer
}

func newStreamWriter(w io.Writer, heartbeat time.Duration) *streamWriter {
	s := &streamWriter{w: w, every: heartbeat}
	if heartbeat > 0 {
		s.timer = time.NewTimer(heartbeat)
	}
	return s
}

// beat receives when a heartbeat is due (never without heartbeats).
func (s *streamWriter) beat() <-chan time.Time {
	if s.timer == nil {
		return nil
	}
	return s.timer.C
}

// stop releases the heartbeat's timer.
func (s *streamWriter) stop() {
	if s.timer != nil {
		s.timer.Stop()
	}
}

// compactJSON is v as one line of JSON, HTML characters as they are,
// every unsafe character a \u escape (jsonstream.Escape), ending in a
// line break.
func compactJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return jsonstream.Escape(b.Bytes()), nil
}

// send writes v as one line (compactJSON) in one write, and starts the
// heartbeat's wait again.
func (s *streamWriter) send(v any) error {
	line, err := compactJSON(v)
	if err != nil {
		return err
	}
	if _, err := s.w.Write(line); err != nil {
		return fail(exitUsage, "writing the stream: %v", err)
	}
	if s.timer != nil {
		s.timer.Reset(s.every)
	}
	return nil
}

// heartbeatLine says the stream is alive and has nothing new.
type heartbeatLine struct {
	V    int       `json:"v"`
	Kind string    `json:"kind"`
	Time time.Time `json:"time"`
}

func (s *streamWriter) heartbeat() error {
	return s.send(heartbeatLine{V: streamSchema, Kind: "heartbeat", Time: time.Now().UTC()})
}

// errorLine is a stream's error: with ExitCode set the stream ends with
// that exit code; without, it goes on (cat --follow: the file is missing
// or cannot be read for now).
type errorLine struct {
	V        int    `json:"v"`
	Kind     string `json:"kind"`
	Code     string `json:"code"`
	Path     string `json:"path,omitempty"`
	Error    string `json:"error"`
	ExitCode int    `json:"exit_code,omitempty"`
}

// endWith ends a stream on err, an *exitError of the command: a line of
// kind "error" (code "usage", "invalid" or "conflict", as the CLI's
// error object's kind), then the exit code and the message on stderr.
func (s *streamWriter) endWith(err error) error {
	var ee *exitError
	if errors.As(err, &ee) && ee.msg != "" {
		_ = s.send(errorLine{V: streamSchema, Kind: "error", Code: errorKind(ee.code), Error: textfmt.OneLine(ee.msg), ExitCode: ee.code})
	}
	return err
}

// The fleet's stream: a snapshot line, then a line per change.

// snapshotLine is the fleet as `status --scan --json` prints it.
type snapshotLine struct {
	V    int    `json:"v"`
	Kind string `json:"kind"`
	fleetJSON
}

// rowLine is a loop's row that changed, or a loop that appeared.
type rowLine struct {
	V    int             `json:"v"`
	Kind string          `json:"kind"`
	Row  json.RawMessage `json:"row"`
}

// removedLine is a loop that went away (its file, or its project).
type removedLine struct {
	V       int    `json:"v"`
	Kind    string `json:"kind"`
	Path    string `json:"path"`
	Project string `json:"project"`
	Name    string `json:"name"`
}

// runStatusFollow is `status --scan DIR... --json --follow`: the fleet
// as `status --scan --json` prints it, on one line, then a line for each
// row that changes, each loop that appears and each that goes, as the
// fleet's watcher (the live table's) sees them, until stdin closes or a
// signal comes.
func runStatusFollow(cmd *cobra.Command, args []string, s *scanFlags, file string, g *globalFlags, asJSON bool, f *followFlags, activity fleet.ActivityFunc) error {
	out := newStreamWriter(cmd.OutOrStdout(), f.heartbeat)
	defer out.stop()
	switch {
	case !asJSON:
		return fail(exitUsage, "--follow writes JSON lines: add --json (aot-tui --scan is the live table)")
	case !s.on:
		return out.endWith(fail(exitUsage, "--follow goes with --scan (aot-tui cat --follow PATH streams one loop's file)"))
	}
	dirs, err := scanDirs(args, file, nil)
	if err != nil {
		return out.endWith(err)
	}
	ctx, stop := streamContext(cmd.InOrStdin())
	defer stop()
	// The rows carry what the loops' sessions show (needs you, cost), as
	// status --scan --json's do: a reader on another machine sees them.
	opts := s.options(g)
	opts.Activity = activity
	w, err := fleet.Start(dirs, opts)
	if err != nil {
		return out.endWith(fail(exitUsage, "%v", err))
	}
	defer w.Stop()
	// Reading every loop takes a moment: heartbeats say the link is alive
	// meanwhile.
	for ready := false; !ready; {
		select {
		case <-w.Ready():
			ready = true
		case <-out.beat():
			if err := out.heartbeat(); err != nil {
				return err
			}
		case <-ctx.Done():
			return nil
		}
	}
	// The snapshot holds every row published so far; what changes from
	// here on is in Changes. (A change published between the two is in
	// both: sent holds what the reader has, and it is not sent again.)
	w.Changes()
	rows := w.Rows()
	sent := make(map[string][]byte, len(rows))
	for _, r := range rows {
		b, err := compactJSON(r)
		if err != nil {
			return err
		}
		sent[r.Path] = b
	}
	abs := make([]string, len(dirs))
	for i, d := range dirs {
		abs[i], _ = filepath.Abs(d)
	}
	snap := snapshotLine{V: streamSchema, Kind: "snapshot",
		fleetJSON: fleetJSON{Dirs: abs, Depth: s.depth, Summary: fleet.Summarize(rows), Loops: rows, Watch: w.Watch()}}
	if err := out.send(snap); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-out.beat():
			if err := out.heartbeat(); err != nil {
				return err
			}
		case <-w.Notify():
			for _, r := range w.Changes() {
				if err := sendChange(out, sent, r); err != nil {
					return err
				}
			}
		}
	}
}

// sendChange writes the line of a changed row r, unless the reader has
// it already (sent: the rows it has, as JSON).
func sendChange(out *streamWriter, sent map[string][]byte, r fleet.Row) error {
	if r.Gone {
		if _, ok := sent[r.Path]; !ok {
			return nil
		}
		delete(sent, r.Path)
		return out.send(removedLine{V: streamSchema, Kind: "removed", Path: r.Path, Project: r.Project, Name: r.Name})
	}
	b, err := compactJSON(r)
	if err != nil {
		return err
	}
	if bytes.Equal(sent[r.Path], b) {
		return nil
	}
	sent[r.Path] = b
	return out.send(rowLine{V: streamSchema, Kind: "row", Row: b})
}
