package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aot-loop/aot-tui/fastyaml"
	"github.com/aot-loop/aot-tui/internal/looptools"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/yamltext"
	"go.yaml.in/yaml/v3"
)

// DefaultMaxSize is the largest state file read unless a caller says
// otherwise: 64 MiB, some 470,000 atoms as sim/gen writes them. (It was 16
// MiB, 88,000 atoms, while the file was read through the node tree;
// reading it straight into the model, `status` handles 250,000 atoms in
// under two seconds: BenchmarkStatusJSON, scripts/statusperf.)
const DefaultMaxSize = 64 << 20

// Document is a parsed AoT state file: its bytes, where the frontmatter is,
// the typed state and, for a text edit, the yaml.Node tree.
type Document struct {
	// Data is the whole file as read.
	Data []byte
	// FM locates the frontmatter and body in Data.
	FM Frontmatter
	// Root is the frontmatter's root mapping node, whose positions drive
	// text edits. Node lines count from the first YAML line; add
	// FM.FirstLine-1 for file lines. Only the write protocol's own parse
	// keeps it: it is nil in a Document from Parse, which reads the text
	// straight into the State when it can (direct.go), and from Reparse;
	// ApplyEdits parses Data again when it needs it.
	Root *yaml.Node
	// State is the decoded state, with file line numbers.
	State *model.State

	lines yamltext.LineMap
	// memo is what Reparse remembers for the next Reparse (nil after Parse).
	memo *docMemo
}

// LineOffset is what to add to a node's Line to get its line in the file,
// as long as the frontmatter has no line break other than \n and \r\n
// (see FileLine).
func (d *Document) LineOffset() int { return d.FM.FirstLine - 1 }

// FileLine returns the file line of a node line of Root. Unlike adding
// LineOffset it stays right when the YAML holds a lone CR or a NEL, LS or
// PS character, which yaml.v3 counts as line breaks and editors do not.
func (d *Document) FileLine(nodeLine int) int { return d.lines.File(nodeLine) }

// Parse reads an AoT state file from bytes. Errors are *Error values with
// the line (no path; Load adds it). Type errors inside an otherwise readable
// file do not fail Parse: they are listed in State.Problems for Validate.
// The Document keeps data as its Data (the State does not share its
// bytes) and no node tree.
func Parse(data []byte) (*Document, error) { return read(data, atomHalves) }

// LoadLoopReadLater is Load for a caller with other work to do on the
// state meanwhile (status --json writes its atoms): the Document's
// State.LoopRead, the loop tools' reading of the file (finish), is still
// being made on another goroutine when it returns, and loopRead, which
// any number of goroutines may call, waits for it and sets it. Nothing
// may read State.LoopRead before loopRead returns, nor write the State
// before. The pass over the lines (3 ms of a 10,000-atom file's 14 ms
// parse) is then made on a second core beside the caller's work; on one
// core, or for a text the fastyaml.Reader does not take, it is made
// before LoadLoopReadLater returns and loopRead has nothing to wait for.
func LoadLoopReadLater(path string, limit int64) (doc *Document, loopRead func(), err error) {
	doc, err = loadWith(path, limit, func(data []byte) (d *Document, err error) {
		d, loopRead, err = ParseLoopReadLater(data)
		return d, err
	})
	if err != nil {
		return nil, nil, err
	}
	return doc, loopRead, nil
}

// ParseLoopReadLater is Parse as LoadLoopReadLater parses: loopRead (nil
// on an error) waits for the State's LoopRead and sets it.
func ParseLoopReadLater(data []byte) (doc *Document, loopRead func(), err error) {
	doc, loopRead, err = readLater(data, atomHalves, runtime.GOMAXPROCS(0) > 1)
	if err != nil {
		return nil, nil, err
	}
	return doc, loopRead, nil
}

// read is Parse, which decodes a list of at least halves atoms in two
// halves at once: straight from the text when the fastyaml.Reader takes
// it, else through the node tree, which the Document does not keep.
func read(data []byte, halves int) (*Document, error) {
	doc, _, err := readLater(data, halves, false)
	return doc, err
}

// readLater is read; with later, a text read directly gets its LoopRead
// from a goroutine that loopRead waits for (LoadLoopReadLater). loopRead
// is never nil.
func readLater(data []byte, halves int, later bool) (doc *Document, loopRead func(), err error) {
	fm, err := SplitFrontmatter(data)
	if err != nil {
		return nil, func() {}, frontmatterError(err)
	}
	yml := fm.YAML(data)
	lines := yamltext.NewLineMap(yml, fm.FirstLine-1)
	if st, _ := readDirect(yml, lines, halves, false, nil); st != nil {
		loopRead = func() {}
		if later {
			st.Body = string(fm.Body(data))
			done := make(chan *model.LoopRead, 1)
			go func() { done <- looptools.Read(data, loopFrame(fm), st) }()
			loopRead = sync.OnceFunc(func() { st.LoopRead = <-done })
		} else {
			finish(st, data, fm, nil, nil)
		}
		return &Document{Data: data, FM: fm, State: st, lines: lines}, loopRead, nil
	}
	doc, err = parseYAML(data, fm, lines, nil, false, halves)
	if doc != nil {
		doc.Root = nil
	}
	return doc, func() {}, err
}

// parseTree is Parse through the node tree, which the Document keeps in
// Root: the parse a text edit (ApplyEdits) works from.
func parseTree(data []byte) (*Document, error) { return parse(data, nil, false, atomHalves) }

// Reparse is Parse for a new version of the file that prev (nil for none)
// was read from, as a watcher reads each change: the Document it returns
// is the one Parse(data) returns, but it is built from prev's parts where
// their text did not change — the entries of atoms, bindings and the other
// top-level lists are parsed and decoded again only when their own text
// changed, and moved to their new lines when lines were added or removed
// above them (see fastyaml.Memo). It also remembers what the next Reparse
// needs, which Parse does not. The two Documents may share decoded
// values: neither may be modified. Its Root is nil: it is for reading,
// and what it keeps is where each entry is, not a tree (readMemo: no
// tree is built for a text the fastyaml.Reader takes). When data differs
// from prev's bytes only inside a few entries (a loop's write: an atom's
// status, the control block), it reads just those entries' text and
// builds nothing else (incremental.go).
func Reparse(prev *Document, data []byte) (*Document, error) {
	if prev != nil && prev.memo == nil {
		prev = nil
	}
	if prev != nil && !incrementalOff.Load() {
		if doc := reparseEdits(prev, data); doc != nil {
			return doc, nil
		}
	}
	return readMemo(data, prev, atomHalves)
}

// treeReparse makes Reparse's whole read go through the node tree, as it
// did before it read the text directly (tests, to compare the two).
var treeReparse atomic.Bool

// readMemo is Reparse's whole read: Parse's, which also records the memo
// the next Reparse needs. A text the fastyaml.Reader takes is decoded
// straight into the State, and the memo — where each entry of the lean
// sections is, the top-level layout — comes from one pass over its lines
// (fastyaml.MemoOf): no node is built. Any other text is read through the
// tree (parse), which records the memo as it parses and takes from prev
// the entries whose text did not change.
func readMemo(data []byte, prev *Document, halves int) (*Document, error) {
	if treeReparse.Load() {
		return parse(data, prev, true, halves)
	}
	fm, err := SplitFrontmatter(data)
	if err != nil {
		return nil, frontmatterError(err)
	}
	yml := fm.YAML(data)
	lines := yamltext.NewLineMap(yml, fm.FirstLine-1)
	if st, memo := readDirect(yml, lines, halves, true, prev); st != nil {
		finish(st, data, fm, prev, memo)
		return &Document{Data: data, FM: fm, State: st, lines: lines, memo: memo}, nil
	}
	return parseYAML(data, fm, lines, prev, true, halves)
}

// frontmatterError is the *Error of a file SplitFrontmatter refused.
func frontmatterError(err error) *Error {
	e := &Error{Msg: err.Error(), Err: err, Line: 1}
	if errors.Is(err, ErrNoFrontmatter) {
		e.Hint = "an AoT state file starts with '---', its YAML, then '---' and the prompt"
	} else {
		e.Hint = "add a '---' line after the YAML"
	}
	return e
}

// parse reads data through the node tree: parseTree, and Reparse when
// record is set; a list of at least halves atoms is decoded in two halves
// at once (see atomsInHalves).
func parse(data []byte, prev *Document, record bool, halves int) (*Document, error) {
	fm, err := SplitFrontmatter(data)
	if err != nil {
		return nil, frontmatterError(err)
	}
	return parseYAML(data, fm, yamltext.NewLineMap(fm.YAML(data), fm.FirstLine-1), prev, record, halves)
}

// parseYAML is parse once the frontmatter fm of data is found, lines being
// its YAML's LineMap.
func parseYAML(data []byte, fm Frontmatter, lines yamltext.LineMap, prev *Document, record bool, halves int) (doc *Document, err error) {
	yml := fm.YAML(data)
	var (
		root *yaml.Node
		memo *fastyaml.Memo
	)
	if record {
		var pm *fastyaml.Memo
		if prev != nil {
			pm = prev.memo.yaml
		}
		root, memo, err = fastyaml.ParseMemo(yml, lines, pm, leanSection)
	} else {
		root, err = fastyaml.Parse(yml, lines)
	}
	if err != nil {
		return nil, yamlError(err, yml, lines)
	}
	if root == nil {
		return nil, &Error{Line: fm.FirstLine, Msg: "the frontmatter is empty", Hint: "it must hold objective, control and atoms"}
	}
	if root.Kind != yaml.MappingNode {
		return nil, &Error{Line: lines.File(root.Line), Msg: "the frontmatter is not a mapping of sections", Hint: "it must hold objective:, control:, atoms: …"}
	}
	d := &decoder{lines: lines, aliasBudget: maxAliasExpansions, root: root, halves: halves}
	if memo != nil {
		d.memo = &docMemo{yaml: memo, spans: map[string][]int32{}}
		d.prev = prev
	}
	defer func() {
		if r := recover(); r != nil {
			bomb, ok := r.(aliasBombError)
			if !ok {
				panic(r)
			}
			doc, err = nil, &Error{Line: bomb.line, Msg: bomb.Error(), Hint: "remove the anchors and aliases (&name / *name)"}
		}
	}()
	st := d.decodeState(nodeVal(root))
	if d.stubMissed {
		return parse(data, nil, record, halves)
	}
	st.Problems = d.problems
	finish(st, data, fm, prev, d.memo)
	if record {
		// The tree of a Reparse holds stubs for the entries taken from
		// prev, and keeping it would keep the whole tree (see Reparse).
		root = nil
		if d.memo != nil {
			d.memo.yaml.Release()
		}
	}
	return &Document{Data: data, FM: fm, Root: root, State: st, lines: lines, memo: d.memo}, nil
}

// finish adds to st, decoded from the frontmatter fm of data, the body
// and how the loop's own line-based tools read these bytes: one pass over
// the lines, which on a Reparse (memo, on the tree root, and prev) takes
// the entries whose text did not change from the version before (see
// loopEntries): the same reading as a Parse.
func finish(st *model.State, data []byte, fm Frontmatter, prev *Document, memo *docMemo) {
	body := fm.Body(data)
	if prev != nil && prev.State.Body == string(body) {
		st.Body = prev.State.Body
	} else {
		st.Body = string(body)
	}
	frame := loopFrame(fm)
	if memo != nil {
		e := loopEntries(memo, prev, fm.YAMLStart, fm.FirstLine)
		st.LoopRead, e.read = looptools.ReadEntries(data, frame, st, e)
		e.forget()
		memo.loopTools = e
	} else {
		st.LoopRead = looptools.Read(data, frame, st)
	}
}

// loopFrame is fm as the loop tools' reading takes it.
func loopFrame(fm Frontmatter) looptools.Frame {
	return looptools.Frame{YAMLStart: fm.YAMLStart, YAMLEnd: fm.YAMLEnd,
		BodyStart: fm.BodyStart, FirstLine: fm.FirstLine, BOM: fm.BOM, CRLF: fm.CRLF}
}

// leanSection says which top-level lists Reparse keeps no nodes of: those
// decoded entry by entry (seqEntries, orGroups, bindings), whose entries
// are taken from the previous Document's State. The tree of a 10,000-atom
// file is about 26 MB; what is kept of it instead is where each entry is
// (and a text the Reader takes builds no tree at all: fastyaml.MemoOf).
func leanSection(key string) bool {
	switch key {
	case "atoms", "decompositions", "or_groups", "bindings", "trail", "corrections":
		return true
	}
	return false
}

// The forms of yaml.v3's messages, compiled when a message is first
// read: compiled at the package's initialisation, every run of aot-tui
// paid for them, most never reading a YAML error.
var (
	yamlLineRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })
	yamlAnchorRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: unknown anchor '(.*)' referenced$`) })
)

// yamlParserProblems are the problems yaml.v3's parser (as opposed to its
// scanner) reports. yaml.v3 prints a parser error's line 0-based, so it
// names the line before the one meant; scanner errors are 1-based.
var yamlParserProblems = []string{
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"did not find expected '-' indicator",
	"did not find expected <document start>",
	"did not find expected <stream-start>",
	"did not find expected key",
	"did not find expected node content",
	"found duplicate %TAG directive",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found undefined tag handle",
}

// yamlError turns a yaml.v3 error on the frontmatter yml into an *Error
// on the file's line.
func yamlError(err error, yml []byte, lines yamltext.LineMap) *Error {
	lineOff := lines.Offset()
	msg := err.Error()
	e := &Error{Err: err, Hint: "fix the YAML syntax on that line"}
	if m := yamlLineRE().FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		if slices.Contains(yamlParserProblems, m[2]) {
			n++
		}
		// A construct left open runs into the end of the frontmatter; name
		// its last line with text rather than the closing '---'.
		e.Line = min(lines.File(n), lastTextLine(yml)+lineOff)
		e.Msg = "YAML syntax error: " + m[2]
		return e
	}
	e.Msg = "YAML error: " + trimYAMLPrefix(msg)
	switch {
	case strings.Contains(msg, "max depth"):
		e.Hint = "the YAML nests too deeply to be a state file"
		// yaml.v3 omits the line when it is the first one.
		e.Line = lineOff + 1
	case strings.Contains(msg, "aliasing"):
		e.Hint = "remove the anchors and aliases (&name / *name)"
	case yamlAnchorRE().MatchString(msg):
		name := yamlAnchorRE().FindStringSubmatch(msg)[1]
		if i := bytes.Index(yml, []byte("*"+name)); i >= 0 {
			e.Line = lineOff + 1 + bytes.Count(yml[:i], []byte{'\n'})
		}
		e.Hint = "define the anchor (&" + name + ") before its alias, or remove the alias"
	case isReaderError(msg):
		// A reader error (invalid UTF-8, a control character) carries no
		// position at all: find the byte ourselves.
		if i, _ := yamltext.BadChar(yml); i >= 0 {
			e.Line = lineOff + 1 + bytes.Count(yml[:i], []byte{'\n'})
		}
		e.Hint = "the frontmatter must be UTF-8 text without control characters"
	default:
		// Otherwise yaml.v3 omits the line only when it is the first.
		e.Msg = "YAML syntax error: " + trimYAMLPrefix(msg)
		e.Line = lineOff + 1
	}
	return e
}

// lastTextLine is the 1-based number of the last line of yml that holds
// more than blanks (1 if none does).
func lastTextLine(yml []byte) int {
	t := bytes.TrimRight(yml, " \t\r\n")
	return bytes.Count(t, []byte{'\n'}) + 1
}

func isReaderError(msg string) bool {
	for _, s := range []string{"UTF-8", "UTF-16", "control characters", "Unicode character", "surrogate"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func trimYAMLPrefix(s string) string {
	if len(s) > 6 && s[:6] == "yaml: " {
		return s[6:]
	}
	return s
}

// ParseError is a convenience for tests and callers that want the line of
// a parse failure.
func ParseError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

func sizeError(size, limit int64) *Error {
	got, lim := humanBytes(size), humanBytes(limit)
	if got == lim {
		// "16.0 MiB, larger than the 16.0 MiB limit" would read as a bug.
		got, lim = fmt.Sprintf("%s (%d bytes)", got, size), fmt.Sprintf("%s (%d bytes)", lim, limit)
	}
	return &Error{
		Msg:  fmt.Sprintf("the file is %s, larger than the %s limit", got, lim),
		Hint: "is this really a state file? raise the limit with --max-size if it is",
		Err:  ErrTooLarge,
	}
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
