package kit

import "time"

// Level is what a status line is: it sets the line's colour and, by
// default, how long it stays.
type Level int

const (
	// Info is a plain message.
	Info Level = iota
	// Success says something asked for was done (a correction written).
	Success
	// Warn says something needs the person's eye but nothing failed (a
	// guard stood down, the loop was let go).
	Warn
	// Error says something asked for failed.
	Error
)

// String names the level as the message log shows it.
func (l Level) String() string {
	switch l {
	case Success:
		return "ok"
	case Warn:
		return "warn"
	case Error:
		return "error"
	}
	return "info"
}

// Status is one line for a loop's footer. Which loop it belongs to is
// said by whoever carries it (the message envelope, the loop it is set
// on), never by which loop happens to be on screen.
type Status struct {
	// Text is the line as written; the footer escapes what it quotes.
	Text string
	// Level is its kind.
	Level Level
	// TTL is how long it stays (0: the level's default).
	TTL time.Duration
}

// How long a status stays when it does not say: a hint (Info) is read at a
// glance; a result is read, and may be a sentence.
const (
	hintTTL   = 3 * time.Second
	resultTTL = 6 * time.Second
)

// TTL is how long a status of the level stays unless it says otherwise.
func (l Level) TTL() time.Duration {
	if l == Info {
		return hintTTL
	}
	return resultTTL
}

// Mark is the glyph before a status of the level, in the footer and the
// message log, so that the level reads without its colour (NO_COLOR, or
// a person who does not tell the colours apart). Info has none.
func (l Level) Mark() string {
	switch l {
	case Success:
		return "✓"
	case Warn:
		return "⚠"
	case Error:
		return "✗"
	}
	return ""
}

// Life is how long s stays: its TTL, else its level's.
func (s Status) Life() time.Duration {
	if s.TTL > 0 {
		return s.TTL
	}
	return s.Level.TTL()
}

// Line is the status as the footer shows it: its level's glyph, then the
// text.
func (s Status) Line() string {
	if mark := s.Level.Mark(); mark != "" {
		return mark + " " + s.Text
	}
	return s.Text
}

// Shown is a status as set on a footer: it shows until Until.
type Shown struct {
	Status
	Until time.Time
}

// Live reports whether s shows at now.
func (s Shown) Live(now time.Time) bool {
	return s.Text != "" && !now.After(s.Until)
}

// At is s while it is live at now, else the zero Shown.
func (s Shown) At(now time.Time) Shown {
	if !s.Live(now) {
		return Shown{}
	}
	return s
}
