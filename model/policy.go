package model

import (
	"fmt"
	"regexp"
	"sync"
)

// RuleStaysValid is the rule of the refusal WritePolicy returns when a
// correction would add a validation error to the file.
const RuleStaysValid = "a correction leaves the file valid"

// WritePolicy is the one rule every correction is written by, from the CLI
// and the TUI alike (statefile applies it to every write it prepares): it
// returns nil when the correction that turns before into after may be
// written to the file at path, else a *Refusal that says why.
//
//   - A correction never adds a validation error (RuleStaysValid).
//   - On a file that fails validation, a correction is refused
//     (RuleFileProblems, naming the first error and its line and how to
//     see them all), unless it removes an error: the errors after it are
//     a strict subset of those before, compared as a multiset of messages
//     without the line numbers and list positions that move (errorKey).
//   - But a plan with AnyFile — a stop, and the /redirect handshake flag
//     — is written on any file: stopping a broken loop is what a person
//     needs most, and the flag pauses the loop while a person prepares the
//     correction that repairs it — and must always clear again, or a file
//     that went bad while a form was open would pause its loop for good.
//     Neither touches more than control's flags, so neither can make the
//     file worse (the first rule still holds for them).
//
// Warnings never block: only findings of severity "error" count.
func WritePolicy(path string, before, after *State, anyFile bool) error {
	old, first := errorsOf(before)
	added, left := compareErrors(old, after)
	if added != "" {
		// A refusal like the planner's own (exit 1): the correction would
		// break an invariant the planner did not check.
		return &Refusal{Rule: RuleStaysValid,
			Reason: fmt.Sprintf("the correction would make %s invalid: %s; nothing was written", path, added)}
	}
	total := 0
	for _, n := range old {
		total += n
	}
	if total == 0 || anyFile || left < total {
		return nil
	}
	more := ""
	if total > 1 {
		more = fmt.Sprintf(" and %d more", total-1)
	}
	return &Refusal{Rule: RuleFileProblems,
		Reason: fmt.Sprintf("%s fails validation (%s%s): a correction is written on it only when it removes an error (see them all: aot-tui validate -f %s); nothing was written",
			path, first, more, path)}
}

// errorsOf counts the validation errors of st by errorKey, and returns
// the first (by line) as the report words it.
func errorsOf(st *State) (map[string]int, string) {
	keys := map[string]int{}
	first := ""
	for _, p := range Validate(st).Problems {
		if p.Severity != "error" {
			continue
		}
		if first == "" {
			first = Problem{Line: p.Line, Message: p.Message}.String()
		}
		keys[errorKey(p.Message)]++
	}
	return keys, first
}

// compareErrors compares the errors of after with old (errorsOf of the
// state before): added is the first error after has that old has not (""
// when none), left how many of after's errors old has.
func compareErrors(old map[string]int, after *State) (added string, left int) {
	remain := make(map[string]int, len(old))
	for k, n := range old {
		remain[k] = n
	}
	for _, p := range Validate(after).Problems {
		if p.Severity != "error" {
			continue
		}
		k := errorKey(p.Message)
		if remain[k] == 0 {
			if added == "" {
				added = Problem{Line: p.Line, Message: p.Message}.String()
			}
			continue
		}
		remain[k]--
		left++
	}
	return added, left
}

// movingNumbers is compiled when first used (a command that writes no
// correction does not pay for it at start).
var movingNumbers = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line \d+|\[\d+\]`) })

// errorKey is a validation error's message without the line numbers and
// list positions it mentions ("first defined on line 95", "atoms[3]"),
// which move when a correction adds or removes lines or items above them.
func errorKey(msg string) string { return movingNumbers().ReplaceAllString(msg, "#") }
