package main

import (
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"
)

// A PATH for the TUI that does not exist is waited for only when it looks
// like a path: it contains a slash, a backslash or a dot (./foo, foo/,
// loop.md). A bare word that names nothing here (stats, verfy) is a
// mistyped command far more often than a loop still to come, and the TUI
// would wait for its .claude/aot-loop-state.md for ever; so it is refused
// at once with exit 2 — in the command position as an unknown command,
// with the commands it is close to — and the message says how to wait for
// such a directory after all (./foo, or -f foo).

// looksLikePath says whether arg is taken as a path even if nothing is
// there yet.
func looksLikePath(arg string) bool {
	if arg == "" || strings.ContainsAny(arg, `/\.`) {
		return true
	}
	_, err := os.Lstat(arg)
	return err == nil
}

// checkPathArgs refuses the bare words among the TUI's PATH arguments
// that name nothing (see looksLikePath). args[0] is in the command
// position: a word there is an unknown command.
func checkPathArgs(root *cobra.Command, args []string) error {
	for i, a := range args {
		if looksLikePath(a) {
			continue
		}
		if i == 0 {
			return unknownCommand(root, a)
		}
		return fail(exitUsage, "%q does not exist; to watch a loop that does not exist yet give a path: ./%s", a, a)
	}
	return nil
}

// unknownCommand is the error for word in the command position.
func unknownCommand(root *cobra.Command, word string) error {
	if s := suggest(root, word); len(s) > 0 {
		return fail(exitUsage, "unknown command %q (did you mean %s?)", word, orList(s))
	}
	return fail(exitUsage, "unknown command %q; to watch a loop that does not exist yet give a path: ./%s (see aot-tui --help)", word, word)
}

// suggest is the commands under root (the program's, or redirect's) that
// word may be a slip for, the nearest first, at most three: a command or
// alias that word begins, or within two edits of word (insert, delete,
// replace, swap two neighbours; case ignored), or within a third of its
// length for a name of nine letters or more (completion: three). Hidden
// commands are not offered.
func suggest(root *cobra.Command, word string) []string {
	w := strings.ToLower(word)
	type hit struct {
		name string
		dist int
	}
	best := map[string]int{}
	for _, c := range root.Commands() {
		if c.Hidden || c.Deprecated != "" {
			continue
		}
		for _, n := range append([]string{c.Name()}, c.Aliases...) {
			n = strings.ToLower(n)
			d := editDistance(w, n)
			if d > max(2, len([]rune(n))/3) && !strings.HasPrefix(n, w) {
				continue
			}
			if old, ok := best[c.Name()]; !ok || d < old {
				best[c.Name()] = d
			}
		}
	}
	hits := make([]hit, 0, len(best))
	for n, d := range best {
		hits = append(hits, hit{n, d})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].dist != hits[j].dist {
			return hits[i].dist < hits[j].dist
		}
		return hits[i].name < hits[j].name
	})
	var out []string
	for i := 0; i < len(hits) && i < 3; i++ {
		out = append(out, hits[i].name)
	}
	return out
}

// orList is "a", "a or b", "a, b or c".
func orList(s []string) string {
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// editDistance is the optimal string alignment distance between a and b
// (in runes): insertions, deletions, substitutions and transpositions of
// two neighbours each count one.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// d[i][j] is the distance between s[:i] and t[:j].
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
