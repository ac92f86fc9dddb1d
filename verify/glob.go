package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// The loop's verify_file.py treats a value holding '*' or '?' as a pattern
// for Python's glob.glob(value, recursive=True), and anything else as a
// literal path. globber reproduces that glob: a component matches with
// fnmatch (*, ?, [abc], [!abc], [a-z]); names starting with '.' match only
// a pattern component starting with '.'; "**" alone in a component matches
// any number of directories, itself included. Two differences, both on
// purpose: "**" does not descend into symbolic links to directories (Python
// follows them until the path gets too long), and "missing/**" matches
// nothing, as in Python 3.12 and later (3.11 matched "missing/").

// hasMagic reports whether s holds a glob metacharacter (glob.has_magic).
func hasMagic(s string) bool { return strings.ContainsAny(s, "*?[") }

func isRecursive(s string) bool { return s == "**" }

func isHidden(name string) bool { return strings.HasPrefix(name, ".") }

// globber runs one glob relative to dir; the walk stops when ctx is done.
type globber struct {
	ctx context.Context
	dir string
	err error
}

// glob returns the matches of pattern, spelled as Python spells them.
func (g *globber) glob(pattern string) ([]string, error) {
	out := g.iglob(pattern, false)
	// iglob drops the empty match a leading "**" yields for the top directory.
	if strings.HasPrefix(pattern, "**") && len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	return out, g.err
}

// fs is where a pattern's path is on disk.
func (g *globber) fs(p string) string {
	switch {
	case p == "" && g.dir == "":
		return "."
	case p == "":
		return g.dir
	case filepath.IsAbs(p) || g.dir == "":
		return p
	}
	return filepath.Join(g.dir, p)
}

func (g *globber) lexists(p string) bool { _, err := os.Lstat(g.fs(p)); return err == nil }

func (g *globber) isdir(p string) bool {
	fi, err := os.Stat(g.fs(p))
	return err == nil && fi.IsDir()
}

func (g *globber) stopped() bool {
	if g.err == nil && g.ctx.Err() != nil {
		g.err = g.ctx.Err()
	}
	return g.err != nil
}

// iglob is glob._iglob.
func (g *globber) iglob(pathname string, dironly bool) []string {
	if g.stopped() {
		return nil
	}
	dirname, basename := pySplit(pathname)
	if !hasMagic(pathname) {
		if basename != "" {
			if g.lexists(pathname) {
				return []string{pathname}
			}
		} else if g.isdir(dirname) {
			return []string{pathname}
		}
		return nil
	}
	if dirname == "" {
		if isRecursive(basename) {
			return g.glob2("", basename, dironly)
		}
		return g.glob1("", basename, dironly)
	}
	dirs := []string{dirname}
	if dirname != pathname && hasMagic(dirname) {
		dirs = g.iglob(dirname, true)
	}
	in := g.glob0
	switch {
	case hasMagic(basename) && isRecursive(basename):
		in = g.glob2
	case hasMagic(basename):
		in = g.glob1
	}
	var out []string
	for _, d := range dirs {
		for _, name := range in(d, basename, dironly) {
			out = append(out, pyJoin(d, name))
		}
	}
	return out
}

// glob0 matches a literal basename in dir; an empty basename (a pattern
// ending in '/') matches dir when it is a directory, which the top
// directory, spelled "", is not for Python (os.path.isdir("") is false).
func (g *globber) glob0(dir, basename string, _ bool) []string {
	if basename != "" {
		if g.lexists(joinNonEmpty(dir, basename)) {
			return []string{basename}
		}
	} else if dir != "" && g.isdir(dir) {
		return []string{""}
	}
	return nil
}

// glob1 matches a pattern against the names in dir.
func (g *globber) glob1(dir, pattern string, dironly bool) []string {
	re, err := fnmatchRegexp(pattern)
	if err != nil {
		g.err = err
		return nil
	}
	var out []string
	for _, name := range g.listdir(dir, dironly) {
		if isHidden(name) && !isHidden(pattern) {
			continue
		}
		if re.MatchString(name) {
			out = append(out, name)
		}
	}
	return out
}

// glob2 is "**": dir itself, then everything below it.
func (g *globber) glob2(dir, _ string, dironly bool) []string {
	var out []string
	if dir == "" || g.isdir(dir) {
		out = append(out, "")
	}
	return append(out, g.rlistdir(dir, dironly)...)
}

func (g *globber) rlistdir(dir string, dironly bool) []string {
	var out []string
	for _, x := range g.listdir(dir, dironly) {
		if isHidden(x) || g.stopped() {
			continue
		}
		out = append(out, x)
		p := joinNonEmpty(dir, x)
		if fi, err := os.Lstat(g.fs(p)); err != nil || !fi.IsDir() {
			continue // a file, or a link: not descended into
		}
		for _, y := range g.rlistdir(p, dironly) {
			out = append(out, joinNonEmpty(x, y))
		}
	}
	return out
}

// listdir lists dir's names (only directories, links to them included,
// with dironly); an unreadable directory has none.
func (g *globber) listdir(dir string, dironly bool) []string {
	entries, err := os.ReadDir(g.fs(dir))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if dironly {
			isDir := e.IsDir()
			if e.Type()&os.ModeSymlink != 0 {
				fi, err := os.Stat(filepath.Join(g.fs(dir), e.Name()))
				isDir = err == nil && fi.IsDir()
			}
			if !isDir {
				continue
			}
		}
		out = append(out, e.Name())
	}
	return out
}

// pySplit is os.path.split: the head keeps no trailing slashes unless it
// is all slashes.
func pySplit(p string) (head, tail string) {
	i := strings.LastIndexByte(p, '/') + 1
	head, tail = p[:i], p[i:]
	if head != "" && strings.Trim(head, "/") != "" {
		head = strings.TrimRight(head, "/")
	}
	return head, tail
}

// pyJoin is os.path.join of two parts ("a" and "" give "a/").
func pyJoin(a, b string) string {
	switch {
	case strings.HasPrefix(b, "/") || a == "":
		return b
	case strings.HasSuffix(a, "/"):
		return a + b
	}
	return a + "/" + b
}

// joinNonEmpty is glob._join: either part alone when the other is empty.
func joinNonEmpty(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return pyJoin(a, b)
}

// fnmatchRegexp translates a pattern component as fnmatch.translate does:
// * any run, ? one character, [...] a set ([!...] its complement; a ']'
// first is literal; a '[' without its ']' is literal); the rest literal.
func fnmatchRegexp(pat string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString(`(?s)\A`)
	rs := []rune(pat)
	n := len(rs)
	for i := 0; i < n; {
		c := rs[i]
		i++
		switch c {
		case '*':
			for i < n && rs[i] == '*' {
				i++
			}
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			j := i
			if j < n && rs[j] == '!' {
				j++
			}
			if j < n && rs[j] == ']' {
				j++
			}
			for j < n && rs[j] != ']' {
				j++
			}
			if j >= n {
				b.WriteString(`\[`)
				continue
			}
			b.WriteString(charClass(rs[i:j]))
			i = j + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`\z`)
	return regexp.Compile(b.String())
}

// charClass is the RE2 class of fnmatch set content (between '[' and ']').
func charClass(set []rune) string {
	negate := len(set) > 0 && set[0] == '!'
	if negate {
		set = set[1:]
	}
	var ranges strings.Builder
	for k := 0; k < len(set); {
		lo, hi := set[k], set[k]
		if k+2 < len(set) && set[k+1] == '-' {
			hi = set[k+2]
			k += 3
		} else {
			k++
		}
		if lo > hi {
			continue // an empty range matches nothing
		}
		fmt.Fprintf(&ranges, `\x{%x}-\x{%x}`, lo, hi)
	}
	switch {
	case ranges.Len() == 0 && negate:
		return "." // "[!]": any character
	case ranges.Len() == 0:
		return `[^\x00-\x{10ffff}]` // an empty set: nothing
	case negate:
		return "[^" + ranges.String() + "]"
	}
	return "[" + ranges.String() + "]"
}
