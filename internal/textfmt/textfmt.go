// Package textfmt holds the small wordings the CLI, the TUI and the
// packages under them share, so that they read alike everywhere.
package textfmt

import (
	"strconv"
	"strings"
	"time"
)

// Plural is "1 word" or "n words".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// Ago renders a duration as "12s", "4m", "2h", "3d" (whole units, down;
// a negative one as "0s").
func Ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return strconv.Itoa(max(0, int(d.Seconds()))) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + "h"
	}
	return strconv.Itoa(int(d.Hours()/24)) + "d"
}

// AgoUnit is the unit Ago rounds a non-negative duration down to.
func AgoUnit(d time.Duration) time.Duration {
	switch {
	case d < time.Minute:
		return time.Second
	case d < time.Hour:
		return time.Minute
	case d < 48*time.Hour:
		return time.Hour
	}
	return 24 * time.Hour
}

// NextAgoChange is the first instant after now at which Ago(t - since)
// reads differently than at now. Ago counts whole units (seconds under a
// minute, minutes under an hour, hours under two days, then days), so
// that is the end of the current unit; a since in the future reads "0s"
// until a second after it.
func NextAgoChange(since, now time.Time) time.Time {
	d := now.Sub(since)
	if d < 0 {
		return since.Add(time.Second)
	}
	u := AgoUnit(d)
	return since.Add((d/u + 1) * u)
}

// Count is a count shortened for a glance, as the tokens of a loop's
// sessions are shown by status and the TUI: 950, 9500, 12.3k, 4.5M.
func Count(n int64) string {
	switch {
	case n >= 1_000_000:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
	case n >= 10_000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + "k"
	}
	return strconv.FormatInt(n, 10)
}

// USD is an amount of US dollars (an estimated cost) in at most 7
// characters, for a table's column: "<$0.01", "$0.42", "$123.45", "$1234",
// "$123k".
func USD(usd float64) string {
	switch {
	case usd > 0 && usd < 0.005:
		return "<$0.01"
	case usd < 999.995:
		return "$" + strconv.FormatFloat(usd, 'f', 2, 64)
	case usd < 99999.5:
		return "$" + strconv.FormatFloat(usd, 'f', 0, 64)
	}
	return "$" + strconv.FormatFloat(usd/1000, 'f', 0, 64) + "k"
}

// OneLine is s on one line: its runs of white space, newlines included,
// made one space, and none at either end (for a message that must stay
// one line: an error from elsewhere, a command's stderr).
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
