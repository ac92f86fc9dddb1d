package remote

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// StreamVersion is the version of aot-tui's streams this reader reads
// (docs/stream.md: every line's "v").
const StreamVersion = 1

// FileOptions say how to follow a remote state file.
type FileOptions struct {
	// MaxSize bounds the file (default statefile.DefaultMaxSize): a
	// version line over it is refused.
	MaxSize int64
	// Link tunes the link (back-off, stale time); its Argv, OnLine and
	// OnStatus are FollowFile's.
	Link LinkOptions
	// Now is the clock (tests).
	Now func() time.Time
	// NotWritable, when set, is every loaded version's NotWritable: why
	// the caller does not write this file (a read-only host says so
	// without it).
	NotWritable error
}

// FollowFile follows the state file at path on h — `aot-tui cat --follow
// PATH` through h's transport — and calls emit with the Events a local
// statefile.Watch would give: the bytes of each version parsed here, so
// that the views, the timeline and the previews work on them as on a
// local file. The link's troubles are EventError (lost, stale, version
// mismatch: the last state stays on screen), and a read-only host makes
// every loaded version NotWritable. emit is called from the link's
// goroutine, never at once. Stop the returned link to end it.
func FollowFile(h *Host, t statefile.Target, o FileOptions, emit func(statefile.Event)) *Link {
	if o.MaxSize <= 0 {
		o.MaxSize = statefile.DefaultMaxSize
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	r := &fileReader{h: h, t: t, o: o, emit: emit}
	lo := o.Link
	lo.Argv = h.Command("cat", "--follow", "--max-size", fmt.Sprint(o.MaxSize), t.Path)
	lo.Run.MaxLine = int(o.MaxSize)*4/3 + 64<<10
	lo.OnLine = r.line
	lo.OnStatus = r.status
	if lo.Now == nil {
		lo.Now = o.Now
	}
	return StartLink(lo)
}

type fileReader struct {
	h    *Host
	t    statefile.Target
	o    FileOptions
	emit func(statefile.Event)

	doc    *statefile.Document
	derive model.Deriver
	lastEv statefile.Event // the last version loaded
}

// catLine is a line of `cat --follow` (docs/stream.md).
type catLine struct {
	V      int       `json:"v"`
	Kind   string    `json:"kind"`
	Loop   string    `json:"loop"`
	SHA256 string    `json:"sha256"`
	Size   int64     `json:"size"`
	MTime  time.Time `json:"mtime"`
	Data   string    `json:"data"`
	Code   string    `json:"code"`
	Error  string    `json:"error"`
}

func (r *fileReader) line(b []byte) error {
	var l catLine
	if err := r.h.StreamError(l.V, json.Unmarshal(b, &l)); err != nil {
		return err
	}
	now := r.o.Now()
	ev := statefile.Event{Target: r.t, At: now, ModTime: l.MTime}
	switch l.Kind {
	case "version":
		if int64(len(l.Data)) > r.o.MaxSize*4/3+4 || l.Size > r.o.MaxSize {
			return fmt.Errorf("%s sent a version of %d bytes, over the %d-byte limit", clean(r.h.Name), l.Size, r.o.MaxSize)
		}
		data, err := base64.StdEncoding.DecodeString(l.Data)
		if err != nil {
			return fmt.Errorf("%s sent a version whose bytes are not base64: %s", clean(r.h.Name), clean(err.Error()))
		}
		if !strings.EqualFold(statefile.Sum(data), l.SHA256) {
			return fmt.Errorf("%s sent a version whose bytes do not match its sha256: the stream is damaged", clean(r.h.Name))
		}
		if r.lastEv.Kind == statefile.EventLoaded && bytes.Equal(data, r.lastEv.Data) {
			// The same version again (a new link starts with the file as
			// it is): said again, unparsed, so that a banner of the
			// link's trouble goes.
			again := r.lastEv
			again.At, again.ModTime = ev.At, ev.ModTime
			r.emit(again)
			return nil
		}
		ev = r.loaded(ev, data)
		if ev.Kind == statefile.EventLoaded {
			r.lastEv = ev
		}
		r.emit(ev)
	case "invalid":
		ev.Kind, ev.Err = statefile.EventInvalid, errors.New(l.Error)
		r.emit(ev)
	case "gone":
		ev.Kind = statefile.EventRemoved
		if l.Error != "" {
			ev.Err = errors.New(l.Error)
		}
		r.emit(ev)
	case "error":
		if l.Code == "not_found" {
			ev.Kind = statefile.EventWaiting
		} else {
			ev.Kind, ev.Err = statefile.EventError, fmt.Errorf("on %s: %s", r.h.Name, l.Error)
		}
		r.emit(ev)
	default:
		// back, heartbeat, and kinds of later releases: nothing to show.
	}
	return nil
}

// StreamError is what a line of h's stream that decoded with err and says
// it is of stream version v means: not aot-tui's JSON, another version
// (wrapping ErrMismatch), or nil when it can be read.
func (h *Host) StreamError(v int, err error) error {
	if err != nil {
		return fmt.Errorf("%s sent a line that is not aot-tui's JSON (%s): is aot-tui there the right program?", clean(h.Name), clean(textfmt.OneLine(err.Error())))
	}
	if v != StreamVersion {
		return fmt.Errorf("%w: %s streams version %d, this aot-tui reads %d — run the same aot-tui on both machines (aot-tui version --json says which)",
			ErrMismatch, clean(h.Name), v, StreamVersion)
	}
	return nil
}

// loaded is the Event of a version's bytes, parsed here.
func (r *fileReader) loaded(ev statefile.Event, data []byte) statefile.Event {
	ev.Data = data
	if r.t.Kind == statefile.KindPhaseLoop {
		p, err := statefile.ParsePhaseLoop(data)
		if err != nil {
			ev.Kind, ev.Err = statefile.EventInvalid, err
			return ev
		}
		ev.Kind, ev.Phase = statefile.EventLoaded, p
		return ev
	}
	doc, err := statefile.Reparse(r.doc, data)
	if err != nil {
		ev.Kind, ev.Err = statefile.EventInvalid, err
		return ev
	}
	r.doc = doc
	ev.Kind, ev.Doc, ev.Facts = statefile.EventLoaded, doc, r.derive.Derive(doc.State)
	ev.NotWritable = r.o.NotWritable
	if r.h.ReadOnly && ev.NotWritable == nil {
		ev.NotWritable = fmt.Errorf("%s is read-only here (read_only in remotes.yaml; hosts given on the command line always are)", clean(r.h.Name))
	}
	return ev
}

// status tells the link's troubles as the file's: the last state stays,
// with a banner saying why it may be old.
func (r *fileReader) status(s Status) {
	var err error
	switch s.State {
	case Lost:
		err = fmt.Errorf("lost the link to %s: %s — trying again at %s", r.h.Name, s.Reason, s.Retry.Local().Format("15:04:05"))
	case Stale:
		err = fmt.Errorf("no word from %s since %s: the link may be down", r.h.Name, s.Since.Local().Format("15:04:05"))
	case Mismatch:
		err = errors.New(s.Reason)
	default:
		return
	}
	r.emit(statefile.Event{Kind: statefile.EventError, Target: r.t, Err: err, At: r.o.Now()})
}
