package looptools

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/aot-loop/aot-tui/model"
)

// pyReader reads the atoms as the Python scripts do. read_state.py
// (parse_atoms, lines 13-53), validate_state.py (parse_atoms_basic, lines
// 21-58) and decompose_atom.py (parse_atom_info, lines 17-54) share one
// loop over content.split('\n'):
//
//   - the section starts after the first line that startswith('atoms:')
//     and ends at the first later line that is not empty, does not start
//     with a space and holds a ':' (so atoms written at column 0 end it,
//     and so does a comment at column 0 with a colon);
//   - a line whose strip() starts with '- id:' starts an atom; its id is
//     the text after the first ':', strip()ped, then .strip('"').strip("'");
//   - any later line of the atom holding a ':' is split at its first ':';
//     a key depends_on is read only when its value starts with '['
//     (value[1:-1].split(','), each part stripped of blanks and quotes),
//     else as no dependencies; a key status is kept with .strip('"')
//     .strip("'") (read_state.py line 47-48); comments are kept in both.
type pyReader struct {
	r *reader
	// collect, when set, receives each atom read instead of comparing it
	// with the state's: the tests' Atoms (export_test.go) sets it.
	collect          func(*pyAtom)
	started, done    bool
	sectionLine      int
	endLine          int
	endText          []byte
	cur              pyAtom
	inAtom           bool
	k                int // the next atom of the state to pair
	seen             int
	unseen, extra    []int // atoms of the state the scripts do not see; lines they take as atoms
	nUnseen, nExtra  int
	firstUnseenAfter int // the first atom of the state after the section's end (-1: none)
}

// pyAtom is an atom as the scripts read it: slices of the file.
type pyAtom struct {
	start int
	// skip: the atom's entry was taken from the version before, read as
	// aot-tui reads it (only its place is paired); entry is the index of
	// the entry it starts (-1: none).
	skip bool
	// counts: a skipped atom's entry's reading (its hook counts).
	counts                         EntryRead
	entry                          int
	id                             []byte
	status, deps                   []byte
	statusLine, depsLine           int
	hasStatus, hasDeps, depsInFlow bool
}

// skipped makes a the atom of an entry taken from the version before,
// starting on line n: pyAtom{start: n, skip: true, entry: -1, counts:
// prev}. When its slices are nil already it does not write them again (a
// write of a pointer costs a barrier while the collector marks): this
// runs once per atom taken. TestSkippedClearsEveryField holds it to the
// literal, whatever fields pyAtom gains.
func (a *pyAtom) skipped(n int, prev EntryRead) {
	if a.id != nil || a.status != nil || a.deps != nil {
		*a = pyAtom{start: n, skip: true, entry: -1, counts: prev}
		return
	}
	a.start, a.skip, a.entry, a.counts = n, true, -1, prev
	a.statusLine, a.depsLine = 0, 0
	a.hasStatus, a.hasDeps, a.depsInFlow = false, false, false
}

func (p *pyReader) init(r *reader) {
	p.r = r
	p.firstUnseenAfter = -1
}

// line reads line b (file line n) as the scripts' loop does.
func (p *pyReader) line(b []byte, n int) {
	if p.done {
		return
	}
	if len(b) > 0 && b[0] == 'a' && bytes.HasPrefix(b, []byte("atoms:")) {
		p.started, p.sectionLine = true, n
		return
	}
	if !p.started {
		return
	}
	if len(b) > 0 && b[0] != ' ' && bytes.IndexByte(b, ':') >= 0 {
		p.close(n)
		p.done, p.endLine, p.endText = true, n, b
		return
	}
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	rest := b[i:]
	if len(rest) > 0 && (rest[0] >= utf8.RuneSelf || rest[0] < ' ') {
		rest = pyStrip(rest)
	}
	if len(rest) == 0 {
		return
	}
	switch rest[0] {
	case '-':
		if bytes.HasPrefix(rest, []byte("- id:")) {
			p.close(n)
			p.cur = pyAtom{start: n, id: pyValue(pyStrip(rest[len("- id:"):])), entry: p.r.entryAt(n)}
			p.inAtom = true
		}
		return
	case 's', 'd':
		// Only the keys status and depends_on matter (a line whose
		// strip() starts otherwise has another key).
		if !p.inAtom || !bytes.HasPrefix(rest, []byte("status")) && !bytes.HasPrefix(rest, []byte("depends_on")) {
			return
		}
	default:
		return
	}
	colon := bytes.IndexByte(rest, ':')
	if colon < 0 {
		return
	}
	key := pyStrip(rest[:colon])
	if p.cur.skip && (string(key) == "depends_on" || string(key) == "status") {
		p.r.reuseBroken = true
	}
	switch {
	case string(key) == "depends_on":
		value := pyStrip(rest[colon+1:])
		p.cur.hasDeps, p.cur.deps, p.cur.depsLine = true, value, n
		p.cur.depsInFlow = len(value) > 0 && value[0] == '['
	case string(key) == "status":
		p.cur.hasStatus, p.cur.status, p.cur.statusLine = true, pyValue(pyStrip(rest[colon+1:])), n
	}
}

// deps calls fn with each dependency the scripts read from a flow-style
// value: value[1:-1].split(',') (Python slices code points), parts that
// strip() to nothing left out, the others strip()ped and unquoted.
func (a *pyAtom) eachDep(fn func(dep []byte) bool) {
	if !a.depsInFlow {
		return
	}
	inner := a.deps[1:]
	if len(inner) > 0 {
		_, size := utf8.DecodeLastRune(inner)
		inner = inner[:len(inner)-size]
	}
	for len(inner) > 0 || inner != nil {
		part := inner
		i := bytes.IndexByte(inner, ',')
		if i >= 0 {
			part, inner = inner[:i], inner[i+1:]
		} else {
			inner = nil
		}
		if d := pyStrip(part); len(d) > 0 && !fn(pyValue(d)) {
			return
		}
	}
}

// sameDeps reports whether the scripts read a's dependencies as want.
func (a *pyAtom) sameDeps(want []string) bool {
	k := 0
	ok := true
	a.eachDep(func(d []byte) bool {
		if k >= len(want) || string(d) != want[k] {
			ok = false
			return false
		}
		k++
		return true
	})
	return ok && k == len(want)
}

// close pairs the atom just read, which ends before line end, with the
// state's atom on the same line.
func (p *pyReader) close(end int) {
	if !p.inAtom {
		return
	}
	p.inAtom = false
	p.seen++
	if p.collect != nil {
		p.collect(&p.cur)
		return
	}
	atoms := p.r.st.Atoms
	for p.k < len(atoms) && atoms[p.k].Line < p.cur.start {
		p.notSeen(p.k)
		p.k++
	}
	if p.k < len(atoms) && atoms[p.k].Line == p.cur.start {
		// An atom of the state that starts inside this one without a
		// '- id:' line gives it its fields: that atom's finding says so,
		// and this one's fields are not compared.
		r := p.r
		switch {
		case p.cur.skip:
			for i := range r.yamlCounts {
				r.yamlCounts[i] += p.cur.counts.count(i)
			}
		case p.k+1 >= len(atoms) || atoms[p.k+1].Line >= end || atoms[p.k+1].ID == "":
			r.countAtom(p.k)
			if p.compare(p.k, &p.cur) && p.cur.entry >= 0 && p.cur.entry == r.plainAtom && r.records[p.cur.entry].consistent(atoms[p.k].Status) {
				r.records[p.cur.entry] |= reusable
			}
		default:
			r.countAtom(p.k)
		}
		p.k++
		return
	}
	p.nExtra++
	if len(p.extra) < maxEach {
		p.extra = append(p.extra, p.cur.start)
	}
}

func (p *pyReader) notSeen(k int) {
	p.r.countAtom(k)
	a := &p.r.st.Atoms[k]
	if p.done && p.endLine > 0 && a.Line > p.endLine {
		if p.firstUnseenAfter < 0 {
			p.firstUnseenAfter = k
		}
		return
	}
	if a.ID == "" {
		return // an atom without an id is an error of its own
	}
	p.nUnseen++
	if len(p.unseen) < maxEach {
		p.unseen = append(p.unseen, k)
	}
}

// finish closes the last atom and reports on the section.
func (p *pyReader) finish() {
	p.close(math.MaxInt)
	p.done = true
	atoms := p.r.st.Atoms
	for ; p.k < len(atoms); p.k++ {
		p.notSeen(p.k)
	}
	cut := p.firstUnseenAfter >= 0
	r := p.r
	switch {
	case len(atoms) == 0:
	case p.seen == 0 && cut && bytes.HasPrefix(p.endText, []byte("- ")):
		r.lr.Findings = append(r.lr.Findings, model.Problem{Line: p.endLine, Path: "atoms",
			Message: fmt.Sprintf("the loop's scripts read no atoms: they end the atoms section at the first line at column 0 holding a colon, and the atoms start at column 0 (line %d); read_state.py lists none and validate_state.py reports \"No atoms defined\"; indent them as '  - id: …'", p.endLine)})
		return
	case cut:
		a := atoms[p.firstUnseenAfter]
		n := len(atoms) - p.firstUnseenAfter
		r.lr.Findings = append(r.lr.Findings, model.Problem{Line: p.endLine, Path: "atoms",
			Message: fmt.Sprintf("the loop's scripts end the atoms section at line %d (%s: a line at column 0 holding a colon): they do not see %s (line %d)%s; indent that line or take out its colon",
				p.endLine, quoteLine(p.endText), a.ID, a.Line, plural(n-1, " and the atom after it", fmt.Sprintf(" and the %d atoms after it", n-1)))})
	case p.seen == 0:
		line := r.st.Lines.Line("atoms")
		r.lr.Findings = append(r.lr.Findings, model.Problem{Line: line, Path: "atoms",
			Message: "the loop's scripts read no atoms: they look for lines starting '- id:' under a line starting 'atoms:'; write the atoms in block style as '  - id: …'"})
		return
	}
	for i, k := range p.unseen {
		if i >= p.nUnseen {
			break
		}
		a := atoms[k]
		into := ""
		if k > 0 {
			into = fmt.Sprintf(", and its fields count as atoms[%d]'s (%s)", k-1, atoms[k-1].ID)
		}
		r.lr.Findings = append(r.lr.Findings, model.Problem{Line: a.Line, Path: fmt.Sprintf("atoms[%d]", k),
			Message: fmt.Sprintf("the loop's scripts do not see atoms[%d] (%s) as an atom: they start one only at a line whose text starts '- id:' (line %d)%s; write it as '  - id: %s' with id as its first key",
				k, a.ID, a.Line, into, a.ID)})
	}
	if p.nUnseen > maxEach {
		r.more(p.nUnseen-maxEach, "atoms the loop's scripts do not see", atoms[p.unseen[maxEach-1]].Line)
	}
	for _, l := range p.extra {
		r.lr.Findings = append(r.lr.Findings, model.Problem{Line: l,
			Message: fmt.Sprintf("the loop's scripts take line %d for the start of an atom (its text starts '- id:'), which aot-tui does not: read_state.py lists one atom more and the fields after it go to that atom", l)})
	}
	if p.nExtra > maxEach {
		r.more(p.nExtra-maxEach, "lines the loop's scripts take for atoms", p.extra[maxEach-1])
	}
	// The section runs on past the frontmatter: add_atom.py and
	// decompose_atom.py insert new atoms where it ends (add_atom.py lines
	// 46-62), in the Markdown body or at the end of the file.
	if p.started && (p.endLine == 0 || p.endLine > r.closeLine) && r.lr.Hook.Frame == model.FrameSame {
		where := "at the end of the file"
		if p.endLine > 0 {
			where = fmt.Sprintf("before line %d", p.endLine)
		}
		r.lr.Findings = append(r.lr.Findings, model.Problem{Line: p.sectionLine, Path: "atoms",
			Message: fmt.Sprintf("atoms is the last section of the frontmatter: the loop's scripts read it on into the Markdown body, and add_atom.py and decompose_atom.py insert new atoms %s, outside the frontmatter; move another section after atoms", where)})
	}
}

func plural(n int, one, many string) string {
	switch n {
	case 0:
		return ""
	case 1:
		return one
	}
	return many
}

// compare reports where the scripts read atom k otherwise than aot-tui.
func (p *pyReader) compare(k int, got *pyAtom) (same bool) {
	a := &p.r.st.Atoms[k]
	r := p.r
	sameStatus := !a.Status.Known() || got.hasStatus && string(got.status) == string(a.Status)
	if string(got.id) == a.ID && sameStatus && got.sameDeps(a.DependsOn) {
		return true // the common case, without allocating
	}
	path := fmt.Sprintf("atoms[%d]", k)
	switch {
	case string(got.id) == a.ID || !r.want("id", got.start):
	case a.ID == "":
		// YAML reads no id ('- id: # A8', '- id: ~'): the schema's error
		// says so; "remove the comment" would leave none either.
		fix := "write the atom's id"
		if commentIn(got.id) {
			fix += " in place of the comment"
		}
		r.lr.Findings = append(r.lr.Findings, model.Problem{Line: got.start, Path: path + ".id",
			Message: fmt.Sprintf("the loop's scripts read %s.id as %s (%s), where aot-tui reads no id; %s",
				path, shown(got.id), why(got.id, got.start), fix)})
	default:
		r.lr.Findings = append(r.lr.Findings, model.Problem{Line: got.start, Path: path + ".id",
			Message: fmt.Sprintf("the loop's scripts read %s.id as %s (%s): update_atom.py answers \"Atom %s not found\" when a worker reports on it; %s",
				path, shown(got.id), why(got.id, got.start), a.ID, fix(got.id, "id: "+a.ID))})
	}
	switch {
	case !a.Status.Known():
	case !got.hasStatus:
		if !r.want("status", a.Line) {
			break
		}
		r.lr.Findings = append(r.lr.Findings, model.Problem{Line: a.Line, Path: path + ".status",
			Message: fmt.Sprintf("read_state.py finds no status for %s (%s): the coordinator %s; write '    status: %s' on a line of its own", path, a.ID, statusEffect(a), a.Status)})
	case string(got.status) != string(a.Status):
		if !r.want("status", got.statusLine) {
			break
		}
		r.lr.Findings = append(r.lr.Findings, model.Problem{Line: got.statusLine, Path: path + ".status",
			Message: fmt.Sprintf("read_state.py reads %s.status as %s (%s): the coordinator %s; %s",
				path, shown(got.status), why(got.status, got.statusLine), statusEffect(a), fix(got.status, "status: "+string(a.Status)))})
	}
	if got.sameDeps(a.DependsOn) || !r.want("deps", max(got.depsLine, a.Line)) {
		return false
	}
	var list []string
	missing := false
	got.eachDep(func(d []byte) bool {
		list = append(list, string(d))
		return true
	})
	for _, d := range list {
		if !r.isAtom(d) {
			missing = true
		}
	}
	want := "depends_on: [" + strings.Join(a.DependsOn, ", ") + "]"
	var how, effect string
	switch {
	case !got.hasDeps:
		how = "finds no depends_on"
	case !got.depsInFlow && len(got.deps) == 0:
		how = fmt.Sprintf("read %s.depends_on (block style, line %d) as no dependencies", path, got.depsLine)
	case !got.depsInFlow:
		how = fmt.Sprintf("read %s.depends_on (%s on line %d, not a '[…]' list) as no dependencies", path, shown(got.deps), got.depsLine)
	default:
		how = fmt.Sprintf("read %s.depends_on as %s (%s)", path, showList(list), depsWhy(got))
	}
	switch {
	case missing:
		effect = fmt.Sprintf("%s waits on an atom that does not exist and never runs", a.ID)
	case len(list) < len(a.DependsOn):
		effect = fmt.Sprintf("read_state.py may offer %s to run before %s resolve", a.ID, strings.Join(a.DependsOn, ", "))
	case len(a.DependsOn) == 0:
		effect = fmt.Sprintf("they make %s wait, where aot-tui reads no dependencies", a.ID)
	default:
		effect = fmt.Sprintf("they wait for other atoms than aot-tui (%s)", strings.Join(a.DependsOn, ", "))
	}
	line := got.depsLine
	if line == 0 {
		line = a.Line
	}
	if how == "finds no depends_on" {
		how = fmt.Sprintf("find no depends_on for %s", path)
	}
	fix := "write " + want + " on one line"
	if commentIn(got.deps) {
		fix = "remove the comment"
	}
	r.lr.Findings = append(r.lr.Findings, model.Problem{Line: line, Path: path + ".depends_on",
		Message: fmt.Sprintf("the loop's scripts %s: %s; %s", how, effect, fix)})
	return false
}

func statusEffect(a *model.Atom) string {
	switch a.Status {
	case model.StatusPending:
		return fmt.Sprintf("does not see %s as pending and never runs it", a.ID)
	case model.StatusResolved:
		return fmt.Sprintf("does not count %s as resolved", a.ID)
	}
	return fmt.Sprintf("does not count %s as in progress", a.ID)
}

// why names what makes a value the scripts read differ: "inline comment,
// line 77".
func why(v []byte, line int) string {
	if commentIn(v) {
		return fmt.Sprintf("inline comment, line %d", line)
	}
	return fmt.Sprintf("line %d", line)
}

func fix(v []byte, want string) string {
	if commentIn(v) {
		return "remove the comment"
	}
	return "write " + want
}

func depsWhy(a *pyAtom) string {
	switch {
	case commentIn(a.deps):
		return fmt.Sprintf("inline comment, line %d", a.depsLine)
	case !bytes.HasSuffix(a.deps, []byte("]")):
		return fmt.Sprintf("they read line %d only", a.depsLine)
	}
	return fmt.Sprintf("line %d", a.depsLine)
}

// commentIn reports whether v, a value the scripts read, holds a YAML
// comment (model.CommentAt).
func commentIn(v []byte) bool { return model.CommentAt(string(v)) >= 0 }

// shown quotes a value the scripts read, a comment cut to '# …'
// (model.QuoteValue).
func shown(v []byte) string { return model.QuoteValue(string(v), lineWidth) }

func showList(list []string) string {
	parts := make([]string, len(list))
	for i, d := range list {
		parts[i] = d
		if strings.ContainsAny(d, " #]'\"") || d == "" {
			parts[i] = shown([]byte(d))
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func (p *pyReader) lineWithCR(line []byte, n int) {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	for {
		i := bytes.IndexByte(line, '\r')
		if i < 0 {
			p.line(line, n)
			return
		}
		p.line(line[:i], n)
		line = line[i+1:]
	}
}
