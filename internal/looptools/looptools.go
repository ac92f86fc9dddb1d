// Package looptools reads an AoT state file the way the loop's own tools
// do. The plugin's SubagentStop hook (hooks/subagent-stop-hook.sh) and its
// Python scripts (skills/state-contract/scripts/*.py,
// skills/aot-dag/scripts/*.py in yodakeisuke/ralph-wiggum-aot) do not parse
// YAML: they slice, grep and split the file line by line, and where their
// reading differs from aot-tui's parse they act on theirs. Read records
// what they read (model.LoopRead): statefile calls it on every parse, the
// outlook follows the hook's reading and validate warns where the readings
// differ. Every rule below cites the line of the plugin it comes from.
//
// It costs one pass over the file's lines that allocates only for what it
// reports: the watcher re-reads 10,000-atom files on every loop write.
package looptools

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aot-loop/aot-tui/model"
)

// Frame is where aot-tui found the frontmatter (statefile.Frontmatter).
type Frame struct {
	// YAMLStart and YAMLEnd delimit the YAML text; BodyStart is where the
	// body starts; FirstLine is the file line of the first YAML line.
	YAMLStart, YAMLEnd, BodyStart, FirstLine int
	BOM, CRLF                                bool
}

// maxEach is how many findings of one kind are listed one by one; the
// rest are counted in one more.
const maxEach = 5

// Read reads data as the loop's tools do and compares their reading with
// st, aot-tui's parse of the same bytes with its frontmatter at fm.
func Read(data []byte, fm Frame, st *model.State) *model.LoopRead {
	return readEntries(data, fm, st, nil).lr
}

// Entries are the entries of the frontmatter's top-level lists and
// mappings (the atoms, the bindings, …) of a version read again: an entry
// whose text did not change since the version before need not be read
// again when that reading found it read as aot-tui reads it (the re-read
// memo path, statefile.Reparse).
type Entries interface {
	// Len is the number of entries, in file order.
	Len() int
	// Entry returns entry i: its whole lines, data[start:end], the file
	// line it starts on (0: unknown) and what reading the same text gave
	// in the version before (nil: unknown).
	Entry(i int) (start, end, line int, prev *EntryRead)
}

// EntryRead is what reading one entry gave, kept for the next version:
// the hook's grep counts of its lines (0 to 3 each), whether it was in the
// scripts' atoms section, and whether it can be taken as it is.
type EntryRead uint8

const (
	countBits = 2
	countMax  = 1<<countBits - 1
	// inAtoms: it was read inside the scripts' atoms section.
	inAtoms EntryRead = 1 << 6
	// reusable: it contributes nothing but its counts: none of its lines
	// is one the hook's fields, sed or '---' match, none is at column 0,
	// and it is either outside the atoms section or one atom, starting on
	// its first line, that the scripts read as aot-tui does.
	reusable EntryRead = 1 << 7
)

func (e EntryRead) count(k int) int { return int(e>>(countBits*k)) & countMax }

// ReadEntries is Read for a version whose entries are known; the readings
// it returns, one per entry, are for the next version.
func ReadEntries(data []byte, fm Frame, st *model.State, entries Entries) (*model.LoopRead, []EntryRead) {
	r := readEntries(data, fm, st, entries)
	return r.lr, r.records
}

func readEntries(data []byte, fm Frame, st *model.State, entries Entries) *reader {
	r := readWith(data, fm, st, entries, false)
	if r.reuseBroken {
		// An atom taken from the version before got fields from the lines
		// after it: read every entry again.
		r = readWith(data, fm, st, entries, true)
	}
	return r
}

// readWith is readEntries, taking no entry from the version before when
// noReuse is set.
func readWith(data []byte, fm Frame, st *model.State, entries Entries, noReuse bool) *reader {
	r := &reader{data: data, fm: fm, st: st, lr: &model.LoopRead{}, entries: entries, recording: -1, plainAtom: -1, dash: -1, noReuse: noReuse}
	if entries != nil {
		r.records = make([]EntryRead, entries.Len())
	}
	r.scan()
	r.frame()
	r.counts()
	r.sedTargets()
	r.flush("id", "atom ids the loop's scripts read otherwise")
	r.flush("status", "atom statuses read_state.py reads otherwise")
	r.flush("deps", "dependencies the loop's scripts read otherwise")
	r.files()
	return r
}

type reader struct {
	data []byte
	fm   Frame
	st   *model.State
	lr   *model.LoopRead

	// The hook's frontmatter: awk '/^---$/{p=!p; if(!p) exit; next} p'
	// (hook line 36) prints the lines between the first two lines that
	// are exactly '---'; hookIn is its p, hookDone its exit.
	hookIn, hookDone bool

	// sed: the lines of the whole file its sed expressions match (hook
	// lines 126, 139-140, 168-170, 184-185, 206-208).
	sed [numSed]lineSet

	py pyReader
	// closeLine is the line of aot-tui's closing '---'.
	closeLine int
	// finds counts the findings of each kind so far.
	finds map[string]*found
	ids   map[string]bool

	// The entries of the version (nil: none known), what reading each
	// gave, the one being read (-1: none), its first line and the hook's
	// counts when it began.
	entries   Entries
	records   []EntryRead
	recording int
	recLine   int
	recCounts [3]int
	// recTaint: a line of the entry keeps it from being reused; recIDs
	// counts the atoms the scripts start in it, recFirst is set when one
	// starts on its first line.
	recTaint bool
	recIDs   int
	recFirst bool
	// plainAtom is the entry in the atoms section, read and plain, whose
	// atom is not yet closed (-1: none).
	plainAtom int
	// skipped counts the entries taken from the version before.
	skipped int
	// reuseBroken is set when the scripts give an atom taken from the
	// version before (pyAtom.skip) a status or depends_on from a line
	// after its entry (the next item has no '- id:' line): its reading
	// was not its entry's alone. noReuse takes no entry from the version
	// before (the second reading, then).
	reuseBroken, noReuse bool
	// yamlCounts are the atoms by status (pending, in progress, resolved).
	yamlCounts [3]int
	// perLine: each line read is looked at for a CR and a '---' (the
	// entries taken from the version before have neither); dash is then
	// where the first '---' after the file's start is (-1: none).
	perLine bool
	dash    int
}

// statusIndex is the place of a status in the counts (-1: none of the
// three).
func statusIndex(s model.AtomStatus) int {
	switch s {
	case model.StatusPending:
		return 0
	case model.StatusInProgress:
		return 1
	case model.StatusResolved:
		return 2
	}
	return -1
}

// countAtom counts atom k of the state by its status.
func (r *reader) countAtom(k int) {
	if i := statusIndex(r.st.Atoms[k].Status); i >= 0 {
		r.yamlCounts[i]++
	}
}

// consistent reports whether the hook's counts of an entry's lines are
// those of one atom with status s: what it counts is what its atom is.
func (e EntryRead) consistent(s model.AtomStatus) bool {
	i := statusIndex(s)
	for k := 0; k < 3; k++ {
		want := 0
		if k == i {
			want = 1
		}
		if e.count(k) != want {
			return false
		}
	}
	return true
}

// entryAt notes that the scripts start an atom on line n and returns the
// entry being read when it starts on that line (-1 if none).
func (r *reader) entryAt(n int) int {
	if r.recording < 0 {
		return -1
	}
	r.recIDs++
	if r.recLine == n {
		r.recFirst = true
		return r.recording
	}
	return -1
}

// taint marks the entry being read as one that cannot be reused.
func (r *reader) taint() { r.recTaint = true }

// beginEntry starts reading entry i on line n.
func (r *reader) beginEntry(i, n int) {
	h := &r.lr.Hook
	r.recording, r.recLine = i, n
	r.recCounts = [3]int{h.Pending, h.InProgress, h.Resolved}
	r.recTaint, r.recIDs, r.recFirst = false, 0, false
	if r.py.started && !r.py.done {
		r.records[i] |= inAtoms
	}
}

// endEntry ends reading the entry that began. An entry in the atoms
// section becomes reusable when its atom, once closed, reads as aot-tui
// reads it (plainAtom waits for that).
func (r *reader) endEntry() {
	i := r.recording
	if i < 0 {
		return
	}
	r.recording = -1
	h := &r.lr.Hook
	e := &r.records[i]
	for k, d := range [3]int{h.Pending - r.recCounts[0], h.InProgress - r.recCounts[1], h.Resolved - r.recCounts[2]} {
		if d > countMax {
			return
		}
		*e |= EntryRead(d) << (countBits * k)
	}
	switch atoms := *e&inAtoms != 0; {
	case r.recTaint || !r.hookIn:
	case !atoms && r.recIDs == 0:
		*e |= reusable
	case atoms && r.recIDs == 1 && r.recFirst && r.py.started && !r.py.done:
		r.plainAtom = i
	}
}

// skipEntry takes entry i, starting on line n, from the version before
// when it can.
func (r *reader) skipEntry(i, n int, prev *EntryRead) bool {
	p := &r.py
	inSection := p.started && !p.done
	if r.noReuse || prev == nil || *prev&reusable == 0 || !r.hookIn || inSection != (*prev&inAtoms != 0) {
		return false
	}
	h := &r.lr.Hook
	h.Pending += prev.count(0)
	h.InProgress += prev.count(1)
	h.Resolved += prev.count(2)
	if inSection {
		// Its atom starts on its first line and reads as aot-tui reads
		// it, and the hook counts it as what it is: only its place counts.
		p.close(n)
		p.cur.skipped(n, *prev)
		p.inAtom = true
	}
	r.records[i] = *prev
	r.skipped++
	return true
}

// The lines the hook's sed rewrites: '^  KEY: .*' on every line of the file.
const (
	sedStatus = iota
	sedStopReason
	sedIteration
	sedStallCount
	sedPrevPending
	numSed
)

var sedKeys = [numSed]string{"status", "stop_reason", "iteration", "stall_count", "prev_pending_count"}

// lineSet counts lines and keeps the first few.
type lineSet struct {
	n     int
	first [maxEach + 1]int
}

func (s *lineSet) add(line int) {
	if s.n < len(s.first) {
		s.first[s.n] = line
	}
	s.n++
}

func (s *lineSet) lines() []int { return s.first[:min(s.n, len(s.first))] }

// scan is the one pass over the file's lines ('\n' ends a line for awk,
// grep and sed alike, so a CR stays in the line).
func (r *reader) scan() {
	data := r.data
	r.py.init(r)
	hook := &r.lr.Hook
	// Entries are taken from the version before only where every reader
	// reads lines as they are: no BOM, and the two delimiters exactly '---'
	// (else the hook's frontmatter is elsewhere). An entry with a CR or a
	// '---' in it is read again each time; so are the lines outside the
	// entries, each looked at for them (perLine); without entries, the
	// whole file is looked at once.
	ne, ei := 0, 0
	if r.entries != nil && !r.fm.BOM && r.fm.YAMLStart >= 4 && string(data[r.fm.YAMLStart-4:r.fm.YAMLStart]) == "---\n" &&
		(r.fm.YAMLStart == 4 || data[r.fm.YAMLStart-5] == '\n') && bytes.HasPrefix(data[r.fm.YAMLEnd:], []byte("---")) &&
		(r.fm.YAMLEnd+3 == len(data) || data[r.fm.YAMLEnd+3] == '\n') {
		ne = r.entries.Len()
		r.perLine = true
	} else if r.entries != nil {
		r.entries = nil
		r.records = nil
	}
	cr := !r.perLine && bytes.IndexByte(data, '\r') >= 0
	pos, n := 0, 1
	// The entry ei: where it is, and its reading in the version before.
	var (
		start, end = -1, -1
		prev       *EntryRead
		at         = -1
	)
	for ; pos < len(data); n++ {
		for ei < ne {
			if at != ei {
				start, end, _, prev = r.entries.Entry(ei)
				at = ei
			}
			if pos >= end {
				r.endEntry()
				ei++
				continue
			}
			if pos == start && r.recording != ei {
				if !r.skipEntry(ei, n, prev) {
					r.beginEntry(ei, n)
					break
				}
				// The line after it is the next entry's first, when that
				// follows at once; else its lines are counted.
				from := pos
				pos = end
				if ei++; ei < ne {
					var line int
					start, end, line, prev = r.entries.Entry(ei)
					at = ei
					if start == pos && line > 0 {
						n = line
						continue
					}
				}
				n += bytes.Count(data[from:pos], []byte{'\n'})
				continue
			}
			break
		}
		if pos >= len(data) {
			break
		}
		end := bytes.IndexByte(data[pos:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += pos
		}
		line := data[pos:end]
		if pos == r.fm.YAMLEnd {
			r.closeLine = n
		}
		lineCR := cr
		if r.perLine {
			if bytes.IndexByte(line, '\r') >= 0 {
				lineCR = true
				r.taint()
			}
			if i := bytes.Index(line, []byte("---")); i >= 0 {
				r.taint()
				if r.dash < 0 && pos+i >= 3 {
					r.dash = pos + i
				}
			}
		}
		pos = end + 1
		// What the line starts with decides which readers look at it: the
		// common lines (an atom's description, say) are passed by all.
		k := 0
		for k < len(line) && line[k] == ' ' {
			k++
		}
		var c byte
		if k < len(line) {
			c = line[k]
		}
		switch k {
		case 0:
			if len(line) > 0 {
				r.taint() // a line at column 0
			}
			if len(line) == 3 && string(line) == "---" && !r.hookDone {
				r.hookIn = !r.hookIn
				if r.hookIn {
					hook.FirstLine = n + 1
				} else {
					hook.LastLine = n - 1
					r.hookDone = true
				}
			}
		case 2:
			if c == 's' || c == 'i' || c == 'p' || c == 'r' {
				if r.hookIn {
					r.hookLine(line, n)
				}
				r.sedLine(line, n)
			}
		case 4:
			if r.hookIn && (c == 's' || c == 'm') {
				r.hookLine(line, n)
			}
		}
		// Python reads with universal newlines (Path.read_text in every
		// script).
		switch {
		case lineCR:
			r.py.lineWithCR(line, n)
		case r.py.done:
		case k == 0, c == '-', c < ' ', c >= utf8.RuneSelf, r.py.inAtom && (c == 's' || c == 'd' && bytes.HasPrefix(line[k:], []byte("depends_on"))):
			r.py.line(line, n)
		}
	}
	for ; ei < ne; ei++ {
		r.endEntry()
	}
	if r.hookIn && !r.hookDone {
		// One '---' line only: awk prints to the end of the file.
		hook.LastLine = bytes.Count(data, []byte{'\n'}) + 1
	}
	if hook.FirstLine > hook.LastLine {
		hook.FirstLine, hook.LastLine = 0, 0
	}
	r.py.finish()
}

// hookLine reads one line of the hook's frontmatter: extract_field's
// first match for each field (hook lines 39-59) and grep -c's counts.
func (r *reader) hookLine(line []byte, n int) {
	if len(line) < 3 || line[0] != ' ' || line[1] != ' ' {
		return
	}
	hook := &r.lr.Hook
	if line[2] != ' ' {
		switch line[2] {
		case 's', 'i', 'r', 'p':
		default:
			return
		}
		// extract_field's pattern: "^" + 2 spaces + FIELD + ":" (line 42-44).
		for _, f := range [...]model.HookField{model.HookStatus, model.HookIteration, model.HookStallCount,
			model.HookStopRequested, model.HookRedirectRequested, model.HookPrevPendingCount} {
			if hasKey(line[2:], f.Key()) {
				r.taint()
				if hook.Values[f].Line == 0 {
					hook.Values[f] = fieldValue(line[2+len(f.Key())+1:], n)
				}
			}
		}
		return
	}
	if len(line) < 5 || line[3] != ' ' || line[4] == ' ' {
		return
	}
	rest := line[4:]
	if rest[0] != 's' && rest[0] != 'm' {
		return
	}
	// grep -c '^    status: pending' and the like (lines 97-99): a
	// prefix match on lines indented exactly 4 spaces.
	if bytes.HasPrefix(rest, statusPrefix) {
		switch v := rest[len(statusPrefix):]; {
		case bytes.HasPrefix(v, []byte("pending")):
			hook.Pending++
		case bytes.HasPrefix(v, []byte("in_progress")):
			hook.InProgress++
		case bytes.HasPrefix(v, []byte("resolved")):
			hook.Resolved++
		}
		return
	}
	// extract_constraint: the same pattern with 4 spaces (lines 56-59).
	for _, f := range [...]model.HookField{model.HookMaxIterations, model.HookMaxStallCount} {
		if hasKey(rest, f.Key()) {
			r.taint()
			if hook.Values[f].Line == 0 {
				hook.Values[f] = fieldValue(rest[len(f.Key())+1:], n)
			}
		}
	}
}

var statusPrefix = []byte("status: ")

func hasKey(b []byte, key string) bool {
	return len(b) > len(key) && b[len(key)] == ':' && string(b[:len(key)]) == key
}

// fieldValue is what extract_field prints from the text after the key's
// colon: sub(/^[^:]+: */, "") drops the spaces after it (blanks other than
// spaces stay), gsub(/^["']|["']$/, "") one leading and one trailing
// quote; a comment and trailing blanks stay (hook lines 48-49).
func fieldValue(v []byte, line int) model.HookValue {
	for len(v) > 0 && v[0] == ' ' {
		v = v[1:]
	}
	quoted := false
	if len(v) > 0 && (v[0] == '"' || v[0] == '\'') {
		v, quoted = v[1:], true
	}
	if len(v) > 0 && (v[len(v)-1] == '"' || v[len(v)-1] == '\'') {
		v, quoted = v[:len(v)-1], true
	}
	return model.HookValue{Text: string(v), Line: line, Quoted: quoted}
}

// sedLine records a line (of the whole file, indented exactly 2 spaces)
// that the hook's sed expressions rewrite.
func (r *reader) sedLine(line []byte, n int) {
	rest := line[2:]
	switch rest[0] {
	case 's', 'i', 'p':
	default:
		return
	}
	for k, key := range sedKeys {
		if len(rest) > len(key)+1 && rest[len(key)] == ':' && rest[len(key)+1] == ' ' && string(rest[:len(key)]) == key {
			r.sed[k].add(n)
			r.taint()
			return
		}
	}
}

// want counts a finding of kind on line and reports whether to list it:
// at most maxEach of a kind are, the rest are counted in one more (flush).
func (r *reader) want(kind string, line int) bool {
	if r.finds == nil {
		r.finds = map[string]*found{}
	}
	f := r.finds[kind]
	if f == nil {
		f = &found{}
		r.finds[kind] = f
	}
	f.n++
	if f.n <= maxEach {
		f.line = line
	}
	return f.n <= maxEach
}

// found counts the findings of a kind; line is the last one listed.
type found struct{ n, line int }

// add appends a finding of kind when want says so.
func (r *reader) add(kind string, p model.Problem) {
	if r.want(kind, p.Line) {
		r.lr.Findings = append(r.lr.Findings, p)
	}
}

// flush adds, for kind, a finding that counts what want left out, on the
// line of the last one listed.
func (r *reader) flush(kind, what string) {
	if f := r.finds[kind]; f != nil && f.n > maxEach {
		r.more(f.n-maxEach, what, f.line)
	}
}

func (r *reader) more(n int, what string, line int) {
	r.lr.Findings = append(r.lr.Findings, model.Problem{Line: line,
		Message: fmt.Sprintf("and %d more like the above: %s", n, what)})
}

// isAtom reports whether id is the id of an atom of the state.
func (r *reader) isAtom(id string) bool {
	if r.ids == nil {
		r.ids = make(map[string]bool, len(r.st.Atoms))
		for i := range r.st.Atoms {
			r.ids[r.st.Atoms[i].ID] = true
		}
	}
	return r.ids[id]
}

// frame compares the hook's frontmatter with aot-tui's.
func (r *reader) frame() {
	hook := &r.lr.Hook
	open, closeLine := r.fm.FirstLine-1, r.closeLine
	switch {
	case r.fm.BOM:
		hook.Frame, hook.FrameLine = model.FrameBOM, 1
	case hook.FirstLine == r.fm.FirstLine && hook.LastLine == closeLine-1:
		hook.Frame = model.FrameSame
	default:
		// The delimiter the hook did not take has a CR or blanks.
		bad := open
		if hook.FirstLine == r.fm.FirstLine {
			bad = closeLine
		}
		hook.Frame, hook.FrameLine = model.FrameBlanks, bad
		if l := r.lineText(bad); len(l) > 0 && l[len(l)-1] == '\r' {
			hook.Frame = model.FrameCRLF
		}
	}
}

// lineText is line n of the file, without its '\n' (nil past the end).
func (r *reader) lineText(n int) []byte {
	pos := 0
	for k := 1; k < n; k++ {
		i := bytes.IndexByte(r.data[pos:], '\n')
		if i < 0 {
			return nil
		}
		pos += i + 1
	}
	end := bytes.IndexByte(r.data[pos:], '\n')
	if end < 0 {
		return r.data[pos:]
	}
	return r.data[pos : pos+end]
}

// lineStarts indexes the start of every line (only for findings).
func (r *reader) lineStarts() []int {
	starts := []int{0, 0}
	for i, c := range r.data {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

func lineAt(data []byte, starts []int, n int) []byte {
	if n <= 0 || n >= len(starts) {
		return nil
	}
	b := data[starts[n]:]
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return b
}

// grepStatus is the status grep -c counts a line under (hook lines 97-99).
func grepStatus(line []byte) model.AtomStatus {
	if !bytes.HasPrefix(line, []byte("    status: ")) {
		return ""
	}
	v := line[len("    status: "):]
	for _, s := range []model.AtomStatus{model.StatusPending, model.StatusInProgress, model.StatusResolved} {
		if bytes.HasPrefix(v, []byte(s)) {
			return s
		}
	}
	return ""
}

// counts finds, when the hook's status counts differ from the atoms'
// statuses, which lines make the difference.
func (r *reader) counts() {
	hook := &r.lr.Hook
	if hook.Frame != model.FrameSame {
		return
	}
	// The atoms' statuses were counted as the scripts' reading went by
	// them (yamlCounts).
	if r.yamlCounts == [3]int{hook.Pending, hook.InProgress, hook.Resolved} {
		return
	}
	starts := r.lineStarts()
	statusLines := make(map[int]int, len(r.st.Atoms))
	for i := range r.st.Atoms {
		a := &r.st.Atoms[i]
		l, ok := a.Lines.Get("status")
		if ok {
			statusLines[l] = i
		}
		got := grepStatus(lineAt(r.data, starts, l))
		if !ok || got == a.Status || !a.Status.Known() && got == "" {
			continue
		}
		text := lineAt(r.data, starts, l)
		var why, msg string
		switch {
		case got != "":
			why = fmt.Sprintf("line %d reads %s", l, quoteLine(text))
			msg = fmt.Sprintf("the stop hook counts atoms[%d] (%s, status %q) as %s: its grep matches '    status: %s' as a prefix (line %d); write one of pending, in_progress, resolved", i, a.ID, a.Status, got, got, l)
		case indentOf(text) != 4:
			why = fmt.Sprintf("atoms indented otherwise than the template's, line %d", l)
			msg = fmt.Sprintf("the stop hook does not count atoms[%d] (%s) as %s: its grep counts only status lines indented 4 spaces, and line %d is indented %d; write atoms as '  - id: …' with their fields at 4 spaces", i, a.ID, a.Status, l, indentOf(text))
		default:
			why = fmt.Sprintf("line %d reads %s", l, quoteLine(text))
			msg = fmt.Sprintf("the stop hook does not count atoms[%d] (%s) as %s: its grep matches '    status: %s' unquoted at the start of the line, and line %d reads %s; write status: %s", i, a.ID, a.Status, a.Status, l, quoteLine(text), a.Status)
		}
		if hook.CountWhy == "" {
			hook.CountWhy = why
		}
		r.add("count", model.Problem{Line: l, Path: fmt.Sprintf("atoms[%d].status", i), Message: msg})
	}
	r.flush("count", "atoms the stop hook counts otherwise")
	// Lines counted that are no atom's status line.
	for n := hook.FirstLine; n > 0 && n <= hook.LastLine; n++ {
		text := lineAt(r.data, starts, n)
		got := grepStatus(text)
		if got == "" {
			continue
		}
		if _, ok := statusLines[n]; ok {
			continue
		}
		if hook.CountWhy == "" {
			hook.CountWhy = fmt.Sprintf("line %d is no atom's status", n)
		}
		r.add("extra", model.Problem{Line: n, Message: fmt.Sprintf("the stop hook counts line %d (%s) as a %s atom, but it is no atom's status; indent it otherwise or rename the key", n, quoteLine(text), got)})
	}
	r.flush("extra", "lines the stop hook counts as atoms")
	if hook.CountWhy == "" {
		hook.CountWhy = "see aot-tui validate"
	}
}

func indentOf(b []byte) int {
	n := 0
	for n < len(b) && b[n] == ' ' {
		n++
	}
	return n
}

// lineWidth is how many characters of a line or a value of the file a
// finding shows.
const lineWidth = 60

// quoteLine shows a line of the file in a message, cut to lineWidth
// characters (model.QuoteText).
func quoteLine(b []byte) string { return model.QuoteText(string(b), lineWidth) }

// sedTargets warns about lines other than the control field that the
// hook's sed rewrites: every line of the file starting '  status: '
// becomes '  status: stopped' when it stops the loop (lines 126, 139,
// 168, 184), every '  iteration: ', '  stall_count: ' and
// '  prev_pending_count: ' line is rewritten on each iteration (206-208).
func (r *reader) sedTargets() {
	c := r.st.Control
	var starts []int
	for k, key := range sedKeys {
		set := &r.sed[k]
		if set.n == 0 {
			continue
		}
		own, has := c.Lines.Get(key)
		mine := has && slices.Contains(set.lines(), own)
		if has && !mine && set.n > len(set.first) {
			if starts == nil {
				starts = r.lineStarts()
			}
			mine = bytes.HasPrefix(lineAt(r.data, starts, own), []byte("  "+key+": "))
		}
		n := set.n
		if mine {
			n-- // the control field's own line
		}
		if n == 0 {
			continue
		}
		var others []int
		for _, l := range set.lines() {
			if !has || l != own {
				others = append(others, l)
			}
		}
		if starts == nil {
			starts = r.lineStarts()
		}
		when := "on each iteration"
		into := "the hook's new count"
		switch k {
		case sedStatus:
			when, into = "when it stops the loop", "'  status: stopped'"
		case sedStopReason:
			when, into = "when it stops the loop", "its stop reason"
		}
		what := quoteLine(lineAt(r.data, starts, others[0]))
		if p := r.atomPath(others[0], key); p != "" {
			what += " (" + p + ")"
		}
		more := ""
		if n > 1 {
			more = fmt.Sprintf(" and %d more", n-1)
		}
		r.lr.Findings = append(r.lr.Findings, model.Problem{Line: others[0], Path: r.atomPath(others[0], key),
			Message: fmt.Sprintf("the stop hook's sed rewrites every line of the file that starts with '  %s: ' %s, not only control.%s: line %d %s%s would become %s; keep that key at other indentations outside control",
				key, when, key, others[0], what, more, into)})
	}
}

// atomPath is the path of the field key of the atom whose key is on line
// l ("" if none is).
func (r *reader) atomPath(l int, key string) string {
	for i := range r.st.Atoms {
		if at, ok := r.st.Atoms[i].Lines.Get(key); ok && at == l {
			return fmt.Sprintf("atoms[%d].%s", i, key)
		}
	}
	return ""
}

// files warns about what the scripts do with the file as a whole.
func (r *reader) files() {
	data := r.data
	// validate_state.py: content.startswith('---') (line 101), then
	// content.split('---', 2) (line 105): the frontmatter ends at the next
	// '---' anywhere, even inside a line.
	switch {
	case r.fm.BOM:
		// Reported with the hook's frame (model.LoopToolsWarnings).
	case !bytes.HasPrefix(data, []byte("---")):
		r.lr.Findings = append(r.lr.Findings, model.Problem{Line: 1,
			Message: "the file does not start with '---' (blank lines come first): validate_state.py reports \"Missing YAML frontmatter\"; remove the blank lines"})
	default:
		i := r.dash - 3
		if !r.perLine {
			i = bytes.Index(data[3:], []byte("---"))
		}
		if i >= 0 && 3+i < r.fm.YAMLEnd {
			fmText := data[3 : 3+i]
			var lost []string
			for _, s := range []string{"objective:", "control:", "atoms:", "goal:", "base_case:"} {
				if bytes.Contains(data[3:r.fm.YAMLEnd], []byte(s)) && !bytes.Contains(fmText, []byte(s)) {
					lost = append(lost, strings.TrimSuffix(s, ":"))
				}
			}
			if len(lost) > 0 {
				l := 1 + bytes.Count(data[:3+i], []byte{'\n'})
				r.lr.Findings = append(r.lr.Findings, model.Problem{Line: l,
					Message: fmt.Sprintf("validate_state.py ends the frontmatter at the '---' on line %d (it splits the file at the first '---' after the start) and reports %s as missing; remove that '---'",
						l, strings.Join(lost, ", "))})
			}
		}
	}
	// Every script reads the file with Path.read_text(), which fails on
	// bytes that are not UTF-8 (aot-tui's YAML parse refuses them in the
	// frontmatter, not in the body).
	if body := data[r.fm.BodyStart:]; !utf8.Valid(body) {
		i := r.fm.BodyStart
		for k := 0; k < len(body); {
			c, size := utf8.DecodeRune(body[k:])
			if c == utf8.RuneError && size <= 1 {
				i += k
				break
			}
			k += size
		}
		l := 1 + bytes.Count(data[:i], []byte{'\n'})
		r.lr.Findings = append(r.lr.Findings, model.Problem{Line: l,
			Message: fmt.Sprintf("line %d (in the Markdown body) is not UTF-8: every loop script fails reading the file (Python's read_text raises UnicodeDecodeError); save it as UTF-8", l)})
	}
}

// pyStrip is Python's str.strip(): Unicode white space and the
// separators \x1c-\x1f.
func pyStrip(b []byte) []byte {
	for len(b) > 0 {
		c, size := rune(b[0]), 1
		if c >= utf8.RuneSelf {
			c, size = utf8.DecodeRune(b)
		}
		if !pySpace(c) {
			break
		}
		b = b[size:]
	}
	for len(b) > 0 {
		c, size := rune(b[len(b)-1]), 1
		if c >= utf8.RuneSelf {
			c, size = utf8.DecodeLastRune(b)
		}
		if !pySpace(c) {
			break
		}
		b = b[:len(b)-size]
	}
	return b
}

func pySpace(c rune) bool {
	if c < utf8.RuneSelf {
		return c == ' ' || c >= '\t' && c <= '\r' || c >= 0x1c && c <= 0x1f
	}
	return unicode.IsSpace(c)
}

// pyStripChars is Python's s.strip(chars) for one ASCII character.
func pyStripChars(b []byte, c byte) []byte {
	for len(b) > 0 && b[0] == c {
		b = b[1:]
	}
	for len(b) > 0 && b[len(b)-1] == c {
		b = b[:len(b)-1]
	}
	return b
}

// pyValue is value.strip('"').strip("'"), as the scripts clean ids,
// statuses and dependencies.
func pyValue(b []byte) []byte { return pyStripChars(pyStripChars(b, '"'), '\'') }
