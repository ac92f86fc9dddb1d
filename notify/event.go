// Package notify carries aot-tui's alerts off the terminal: an Event (a
// loop needs attention, needs you, completed, stopped, or lost a
// correction) goes to the commands and webhooks the config file names
// (Config, LoadConfig), each on a goroutine of its own behind a bounded
// queue (Notifier), so that neither the TUI nor `aot-tui watch` ever waits
// for them. What goes wrong is said in notes, one sanitised line each, for
// the TUI's message log or stderr.
//
// It imports nothing of the TUI and nothing of the state files: the TUI,
// the fleet table and the headless watch build the events.
package notify

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aot-loop/aot-tui/internal/jsonstream"
	"github.com/aot-loop/aot-tui/internal/termtext"
)

// SchemaVersion is the "v" of the event's JSON: raised when a change would
// break a receiver written against the previous one.
const SchemaVersion = 1

// Kind is what happened to a loop.
type Kind string

// The kinds of event.
const (
	// NeedsAttention: the loop started to need a person (it is near a
	// limit, paused for a correction, its file is invalid, its status
	// changed to something other than completed or stopped).
	NeedsAttention Kind = "needs_attention"
	// NeedsYou: a session of the loop waits for a person (a permission
	// prompt, a question).
	NeedsYou Kind = "needs_you"
	// Completed: the loop completed.
	Completed Kind = "completed"
	// Stopped: the loop stopped (a limit, /exit-recursion).
	Stopped Kind = "stopped"
	// CorrectionLost: a loop write undid a correction of this session and
	// it could not be applied again.
	CorrectionLost Kind = "correction_lost"
	// Test: the sample `aot-tui notify test` sends.
	Test Kind = "test"
)

// Kinds are every kind, in the order the README lists them.
var Kinds = []Kind{NeedsAttention, NeedsYou, Completed, Stopped, CorrectionLost, Test}

// words are each kind in a title.
var words = map[Kind]string{
	NeedsAttention: "needs attention",
	NeedsYou:       "needs you",
	Completed:      "completed",
	Stopped:        "stopped",
	CorrectionLost: "lost a correction",
	Test:           "test notification",
}

// Event is one alert about one loop.
type Event struct {
	Kind Kind
	// Loop names the loop as the TUI does (its project directory), Path
	// is its state file, Host the machine it runs on ("" for this one).
	Loop, Path, Host string
	// Reason says what happened, in the TUI's words ("the loop stopped:
	// Max stall count reached").
	Reason string
	// Time is when it was seen (zero: when it was sent).
	Time time.Time
	// Version is the aot-tui that saw it (the Notifier's when empty).
	Version string
}

// Field limits, in runes: a stop_reason of a megabyte must not become an
// environment variable of a megabyte.
const (
	maxName   = 200
	maxPath   = 1024
	maxReason = 500
)

// Clean is e with every string made safe to print, to put in an
// environment variable, an HTTP header or a notification: control
// characters, escape sequences and bidirectional overrides shown escaped
// (termtext.Line: \x1b, \u202e), on one line, cut to a bounded length.
func (e Event) Clean() Event {
	e.Kind = Kind(clean(string(e.Kind), 40))
	e.Loop = clean(e.Loop, maxName)
	e.Path = clean(e.Path, maxPath)
	e.Host = clean(e.Host, maxName)
	e.Reason = clean(e.Reason, maxReason)
	e.Version = clean(e.Version, 100)
	return e
}

func clean(s string, limit int) string {
	s = termtext.Line(s)
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	n := 0
	for i := range s {
		if n == limit-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// Title is the event's title: "aot-tui: billing completed" ("… on HOST"
// for a loop on another machine).
func (e Event) Title() string {
	name := e.Loop
	if name == "" {
		name = "a loop"
	}
	w := words[e.Kind]
	if w == "" {
		w = string(e.Kind)
	}
	t := "aot-tui: " + name + " " + w
	if e.Host != "" {
		t += " on " + e.Host
	}
	return t
}

// Text is the event in one line: "billing: the loop completed".
func (e Event) Text() string {
	name := e.Loop
	if e.Host != "" {
		name += " (" + e.Host + ")"
	}
	reason := e.Reason
	if reason == "" {
		reason = words[e.Kind]
	}
	if name == "" {
		return reason
	}
	return name + ": " + reason
}

// Line is the event as `aot-tui watch` prints it: its time, its kind and
// its text.
func (e Event) Line() string {
	return e.Time.UTC().Format(time.RFC3339) + " " + string(e.Kind) + " " + e.Text()
}

// eventJSON is the event's JSON: what a command reads on stdin and the
// body of a webhook in the json format. The keys are stable (README:
// Notifications); text makes it a Slack-compatible message too.
type eventJSON struct {
	V       int    `json:"v"`
	Kind    Kind   `json:"kind"`
	Loop    string `json:"loop"`
	Path    string `json:"path"`
	Host    string `json:"host"`
	Reason  string `json:"reason"`
	Time    string `json:"time"`
	Version string `json:"aot_tui_version"`
	Title   string `json:"title"`
	Text    string `json:"text"`
}

// JSON is the event's JSON object on one line (without a line break).
func (e Event) JSON() []byte {
	data, err := jsonstream.Marshal(eventJSON{V: SchemaVersion, Kind: e.Kind, Loop: e.Loop, Path: e.Path, Host: e.Host,
		Reason: e.Reason, Time: e.Time.UTC().Format(time.RFC3339Nano), Version: e.Version, Title: e.Title(), Text: e.Text()})
	if err != nil { // strings only: cannot happen
		return []byte("{}")
	}
	return data
}

// Env is the event as environment variables (NAME=value), for a command.
func (e Event) Env() []string {
	return []string{
		"AOT_EVENT=" + string(e.Kind),
		"AOT_LOOP=" + e.Loop,
		"AOT_PATH=" + e.Path,
		"AOT_HOST=" + e.Host,
		"AOT_REASON=" + e.Reason,
		"AOT_TIME=" + e.Time.UTC().Format(time.RFC3339),
		"AOT_TUI_VERSION=" + e.Version,
		"AOT_TITLE=" + e.Title(),
		"AOT_TEXT=" + e.Text(),
	}
}

// RowKind is the kind of a fleet row's alert (fleet.AlertReason's why):
// "completed" is Completed; otherwise the row's attention, by the names
// `status --scan --json` prints, says which ("stopped", "needs_you"; a
// reason that starts "needs you" is NeedsYou too); any other is
// NeedsAttention.
func RowKind(attention, why string) Kind {
	switch {
	case why == "completed":
		return Completed
	case attention == "needs_you" || strings.HasPrefix(why, "needs you"):
		return NeedsYou
	case attention == "stopped":
		return Stopped
	}
	return NeedsAttention
}
