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
	r := reader{data: data, fm: fm, st: st, lr: &model.LoopRead{}}
	r.scan()
	r.frame()
	r.counts()
	r.sedTargets()
	r.flush("id", "atom ids the loop's scripts read otherwise")
	r.flush("status", "atom statuses read_state.py reads otherwise")
	r.flush("deps", "dependencies the loop's scripts read otherwise")
	r.files()
	return r.lr
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
	delims           int

	// sed: the lines of the whole file its sed expressions match (hook
	// lines 126, 139-140, 168-170, 184-185, 206-208).
	sed [numSed]lineSet

	py pyReader
	// closeLine is the line of aot-tui's closing '---'.
	closeLine int
	// finds counts the findings of each kind so far.
	finds map[string]*found
	ids   map[string]bool
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
	cr := bytes.IndexByte(data, '\r') >= 0
	for pos, n := 0, 1; pos < len(data); n++ {
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
			if len(line) == 3 && string(line) == "---" && !r.hookDone {
				r.delims++
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
		case cr:
			r.py.lineWithCR(line, n)
		case r.py.done:
		case k == 0, c == '-', c < ' ', c >= utf8.RuneSelf, r.py.inAtom && (c == 's' || c == 'd' && bytes.HasPrefix(line[k:], []byte("depends_on"))):
			r.py.line(line, n)
		}
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
			if hook.Values[f].Line == 0 && hasKey(line[2:], f.Key()) {
				hook.Values[f] = fieldValue(line[2+len(f.Key())+1:], n)
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
		if hook.Values[f].Line == 0 && hasKey(rest, f.Key()) {
			hook.Values[f] = fieldValue(rest[len(f.Key())+1:], n)
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
	var want [3]int
	for i := range r.st.Atoms {
		switch r.st.Atoms[i].Status {
		case model.StatusPending:
			want[0]++
		case model.StatusInProgress:
			want[1]++
		case model.StatusResolved:
			want[2]++
		}
	}
	if want == [3]int{hook.Pending, hook.InProgress, hook.Resolved} {
		return
	}
	starts := r.lineStarts()
	statusLines := make(map[int]int, len(r.st.Atoms))
	for i := range r.st.Atoms {
		a := &r.st.Atoms[i]
		l, ok := a.Lines["status"]
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

// quoteLine shows a line of the file in a message, cut to 60 characters.
func quoteLine(b []byte) string {
	s := string(b)
	if utf8.RuneCountInString(s) > 60 {
		k := 0
		for i := range s {
			if k == 59 {
				s = s[:i] + "…"
				break
			}
			k++
		}
	}
	return "'" + s + "'"
}

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
		own, has := c.Lines[key]
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
		if at, ok := r.st.Atoms[i].Lines[key]; ok && at == l {
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
		if i := bytes.Index(data[3:], []byte("---")); i >= 0 && 3+i < r.fm.YAMLEnd {
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
