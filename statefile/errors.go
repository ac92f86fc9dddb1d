package statefile

import (
	"errors"
	"strconv"
	"strings"
)

// Error is a problem with a state file that stops it from being read or
// written. It renders as one line naming the file, the line and what to do:
//
//	state file .claude/aot-loop-state.md line 12: did not find expected key — fix the YAML on that line
type Error struct {
	// Path is the file (empty when parsing bytes that have no name).
	Path string
	// Line and Column are 1-based; zero when they do not apply.
	Line, Column int
	// Msg says what is wrong.
	Msg string
	// Hint says what to do about it.
	Hint string
	// Err is the underlying error, if any.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString("state file ")
		b.WriteString(e.Path)
	} else {
		b.WriteString("state file")
	}
	if e.Line > 0 {
		b.WriteString(" line ")
		b.WriteString(strconv.Itoa(e.Line))
		if e.Column > 0 {
			b.WriteString(" column ")
			b.WriteString(strconv.Itoa(e.Column))
		}
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString(" — ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// withPath returns err with its Path set, when it is an *Error without one.
func withPath(err error, path string) error {
	var e *Error
	if errors.As(err, &e) && e.Path == "" {
		c := *e
		c.Path = path
		return &c
	}
	return err
}

// ErrTooLarge is wrapped by the error for files above the size limit.
var ErrTooLarge = errors.New("file too large")
