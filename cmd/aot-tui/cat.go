package main

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/spf13/cobra"
)

// `aot-tui cat PATH`: the state file's bytes as statefile's watcher reads
// them — never a file caught half-written by a loop script that rewrites
// it in place, never more than --max-size. Once (raw, or one JSON line
// with --json), or with --follow every version as it comes, one JSON line
// each: what another machine's aot-tui parses and draws as if the loop
// were its own (docs/stream.md).

func newCatCmd(g *globalFlags) *cobra.Command {
	var ff fileFlag
	var asJSON bool
	var fl followFlags
	cmd := &cobra.Command{
		Use:   "cat [PATH] [-f PATH] [--json] [--follow [--heartbeat D]]",
		Short: "The state file's bytes: once, or each version as it comes (--follow, a JSON line each)",
		Long: `Prints the loop's state file as it is on disk, read as aot-tui reads it: a file a
loop script is rewriting in place is read again until it holds still, so a torn
half-write is never printed, and a file over --max-size is refused.

Without --follow the bytes are printed once, as they are (to a terminal, control
characters and escape sequences are shown escaped). A file that holds still and
does not parse is printed all the same and exits 1. --json prints one JSON line
instead, the first line --follow would write: kind "version" with the keys v,
kind, path, loop, sha256, size, mtime and data (the bytes, base64), "invalid"
without data for a file that does not parse, "error" for one that cannot be read.
Its sha256 is what redirect --expect-sha256 takes.

--follow streams the file, one JSON line each (docs/stream.md): a "version" line
each time its bytes change (their sha256 differs from the last line's), with the
bytes in base64; "invalid" when it changes into something that does not parse
(no data: what a loop writes in place is read again until it holds still, and
bytes that never parse are not sent); "gone" when it is removed, "back" when it
returns; "error" when it is missing at the start, unreadable, not a regular file
or over --max-size (the stream goes on, and the file is read when it comes
right); "heartbeat" after --heartbeat (default 15s) without another line. It ends
when stdin closes (when stdin is a pipe or socket, as under ssh) or on SIGINT,
SIGTERM or SIGHUP, exit 0.

Exit codes (without --follow): 0 printed, 1 the file does not parse (printed all
the same), 2 usage or I/O error (missing, unreadable, not a regular file, over
--max-size).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := fl.check(cmd); err != nil {
				return err
			}
			path, err := ff.resolve(args)
			if err != nil {
				return err
			}
			if fl.on {
				return runCatFollow(cmd, path, g, &fl)
			}
			return runCat(cmd, path, g, asJSON)
		},
	}
	ff.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON line: the version's sha256, size, mtime and bytes (base64)")
	fl.register(cmd, "stream every version of the file, one JSON line each")
	return cmd
}

// Frames of `cat --follow` (and `cat --json`).

// versionFrame is the file's bytes, at a version that parses.
type versionFrame struct {
	V      int       `json:"v"`
	Kind   string    `json:"kind"`
	Path   string    `json:"path"`
	Loop   string    `json:"loop"`
	SHA256 string    `json:"sha256"`
	Size   int       `json:"size"`
	MTime  time.Time `json:"mtime"`
	// Data is the bytes, base64 (encoding/json's []byte).
	Data []byte `json:"data"`
}

// invalidFrame is a version that does not parse: it held still (a loop
// write half done is read again until it does), and its bytes are not
// sent.
type invalidFrame struct {
	V      int       `json:"v"`
	Kind   string    `json:"kind"`
	Path   string    `json:"path"`
	Loop   string    `json:"loop"`
	SHA256 string    `json:"sha256"`
	Size   int       `json:"size"`
	MTime  time.Time `json:"mtime"`
	Error  string    `json:"error"`
}

// presenceFrame is "gone" (the file was removed) or "back" (it is there
// again after gone or error; SHA256 is what it holds).
type presenceFrame struct {
	V      int    `json:"v"`
	Kind   string `json:"kind"`
	Path   string `json:"path"`
	SHA256 string `json:"sha256,omitempty"`
	Error  string `json:"error,omitempty"`
}

// catFrames turns the watcher's events into frames: a frame of content
// (version, invalid) when the bytes differ from the last one's, a frame
// of presence (gone, back, error) when the file comes or goes.
type catFrames struct {
	target statefile.Target
	// last is the sha256 of the last content frame; absent says the last
	// frame said the file is not there or cannot be read.
	last   string
	absent bool
}

// frames are the frames ev calls for (none when nothing changed).
func (c *catFrames) frames(ev statefile.Event) []any {
	path, loop := c.target.Path, c.target.Kind.String()
	var out []any
	switch ev.Kind {
	case statefile.EventLoaded, statefile.EventInvalid:
		hexSum := statefile.Sum(ev.Data)
		if c.absent {
			c.absent = false
			out = append(out, presenceFrame{V: streamSchema, Kind: "back", Path: path, SHA256: hexSum})
		}
		if hexSum == c.last {
			return out
		}
		c.last = hexSum
		if ev.Kind == statefile.EventLoaded {
			return append(out, versionFrame{V: streamSchema, Kind: "version", Path: path, Loop: loop, SHA256: hexSum,
				Size: len(ev.Data), MTime: ev.ModTime, Data: ev.Data})
		}
		return append(out, invalidFrame{V: streamSchema, Kind: "invalid", Path: path, Loop: loop, SHA256: hexSum,
			Size: len(ev.Data), MTime: ev.ModTime, Error: textfmt.OneLine(errText(ev.Err))})
	case statefile.EventRemoved:
		c.absent = true
		return append(out, presenceFrame{V: streamSchema, Kind: "gone", Path: path, Error: textfmt.OneLine(errText(ev.Err))})
	default: // EventWaiting, EventError
		c.absent = true
		code, msg := catError(c.target, ev)
		return append(out, errorLine{V: streamSchema, Kind: "error", Code: code, Path: path, Error: msg})
	}
}

// catError is the code and the one-line message of an event that says
// the file is missing or cannot be read.
func catError(t statefile.Target, ev statefile.Event) (code, msg string) {
	err := ev.Err
	switch {
	case errors.Is(err, statefile.ErrSymlinkLoop):
		return "symlink_loop", textfmt.OneLine(err.Error())
	case ev.Kind == statefile.EventWaiting:
		return "not_found", "state file " + t.Path + " does not exist — point PATH at a state file or a project directory (cat --follow waits for it)"
	case errors.Is(err, statefile.ErrTooLarge):
		return "too_large", textfmt.OneLine(err.Error())
	case errors.Is(err, statefile.ErrNotRegular):
		return "not_regular", textfmt.OneLine(err.Error())
	case errors.Is(err, fs.ErrPermission):
		return "permission", textfmt.OneLine(err.Error())
	}
	return "unreadable", textfmt.OneLine("reading " + t.Path + ": " + errText(err))
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// catTarget is the state file PATH names, which --follow waits for when
// it is not there (yet).
func catTarget(path string) (statefile.Target, error) {
	t, err := statefile.Discover(path)
	var odd *statefile.OddFileError
	switch {
	case err == nil, errors.Is(err, statefile.ErrNotFound), errors.As(err, &odd):
		// A missing file or something else at the path is the watch's to
		// say (an error frame) and to wait out.
		return t, nil
	}
	return t, fail(exitUsage, "%v", err)
}

// runCatFollow is `cat --follow`: the frames of every change of the file
// until stdin closes or a signal comes.
func runCatFollow(cmd *cobra.Command, path string, g *globalFlags, f *followFlags) error {
	out := newStreamWriter(cmd.OutOrStdout(), f.heartbeat)
	defer out.stop()
	t, err := catTarget(path)
	if err != nil {
		return out.endWith(err)
	}
	ctx, stop := streamContext(cmd.InOrStdin())
	defer stop()
	events := make(chan statefile.Event)
	wctx, cancel := context.WithCancel(ctx)
	w := startCatWatch(wctx, t, g, events)
	defer func() {
		cancel()
		w.Stop()
	}()
	c := &catFrames{target: t}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-out.beat():
			if err := out.heartbeat(); err != nil {
				return err
			}
		case ev := <-events:
			for _, fr := range c.frames(ev) {
				if err := out.send(fr); err != nil {
					return err
				}
			}
		}
	}
}

// startCatWatch watches t with statefile's watcher and hands its events
// to events until ctx is done.
func startCatWatch(ctx context.Context, t statefile.Target, g *globalFlags, events chan<- statefile.Event) *statefile.Watcher {
	return statefile.StartWatch(t, statefile.WatchOptions{MaxSize: g.maxSize}, func(ev statefile.Event) {
		select {
		case events <- ev:
		case <-ctx.Done():
		}
	})
}

// runCat is `cat` once: the first reading of the watcher — a file caught
// mid-write is read again until it holds still, as the stream does.
func runCat(cmd *cobra.Command, path string, g *globalFlags, asJSON bool) error {
	t, err := catTarget(path)
	if err != nil {
		return err
	}
	events := make(chan statefile.Event, 1)
	ctx, cancel := context.WithCancel(context.Background())
	w := startCatWatch(ctx, t, g, events)
	ev := <-events
	cancel()
	w.Stop()
	out := cmd.OutOrStdout()
	if asJSON {
		c := &catFrames{target: t}
		for _, fr := range c.frames(ev) {
			line, err := compactJSON(fr)
			if err != nil {
				return err
			}
			if _, err := out.Write(line); err != nil {
				return err
			}
		}
	}
	switch ev.Kind {
	case statefile.EventLoaded, statefile.EventInvalid:
		if !asJSON {
			if err := writeBytes(out, ev.Data); err != nil {
				return err
			}
		}
		if ev.Kind == statefile.EventInvalid {
			return fail(exitInvalid, "%v", ev.Err)
		}
		return nil
	}
	_, msg := catError(t, ev)
	return fail(exitUsage, "%s", msg)
}

// writeBytes writes the file's bytes as they are — to a terminal with
// their control characters and escape sequences shown escaped.
func writeBytes(out interface{ Write([]byte) (int, error) }, data []byte) error {
	var dst any = out
	if ww, ok := out.(*watchedWriter); ok {
		dst = ww.w
	}
	if isTerminal(dst) {
		data = []byte(termtext.Block(string(data)))
	}
	if _, err := out.Write(data); err != nil {
		return fail(exitUsage, "writing: %v", err)
	}
	return nil
}
