// Package textfmt holds the small wordings the CLI, the TUI and the
// packages under them share, so that they read alike everywhere.
package textfmt

import (
	"strconv"
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
