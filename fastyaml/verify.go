package fastyaml

import (
	"fmt"

	"github.com/aot-loop/aot-tui/yamltext"
	"go.yaml.in/yaml/v3"
)

// Verify checks on yml the promise Parse rests on: the split parse and the
// fast parser, each run whatever yml's size and the number of cores,
// either decline yml or build the tree yaml.v3 builds for the whole text,
// comments aside; and the promise of the Reader: it takes yml exactly when
// the fast parser does, and then reads the values of that tree. split and
// fast report which of them took yml; err describes the first difference
// found. It is for tests and fuzzing (see FuzzParse in statefile); Parse
// does not call it.
func Verify(yml []byte) (split, fast bool, err error) {
	if split, err = verifySplit(yml); err != nil {
		return split, false, err
	}
	if fast, err = verifyFast(yml); err != nil {
		return split, fast, err
	}
	_, err = verifyReader(yml)
	return split, fast, err
}

// verifySplit is Verify for the split parse alone.
func verifySplit(yml []byte) (bool, error) { return verifyParser("parseSplit", parseSplit, yml) }

// verifyFast is Verify for the fast parser alone.
func verifyFast(yml []byte) (bool, error) { return verifyParser("fastParse", fastParse, yml) }

// verifyParser is Verify for the parser parse, called name in errors.
func verifyParser(name string, parse func([]byte) *yaml.Node, yml []byte) (bool, error) {
	tree := parse(yml)
	if tree == nil {
		return false, nil
	}
	whole, err := parseWhole(yml)
	if err != nil {
		return true, fmt.Errorf("%s accepted YAML that yaml.v3 rejects: %v", name, err)
	}
	if err := sameTree(tree, whole, "root"); err != nil {
		return true, fmt.Errorf("%s differs from yaml.v3: %v", name, err)
	}
	return true, nil
}

// sameTree reports where two node trees differ in anything but comments.
func sameTree(a, b *yaml.Node, path string) error {
	switch {
	case a == nil || b == nil:
		if a != b {
			return fmt.Errorf("%s: one tree is nil", path)
		}
		return nil
	case a.Kind != b.Kind || a.Style != b.Style || a.Tag != b.Tag || a.Value != b.Value || a.Anchor != b.Anchor ||
		a.Line != b.Line || a.Column != b.Column || len(a.Content) != len(b.Content):
		return fmt.Errorf("%s: %+v\n  vs %+v", path, *a, *b)
	case a.Kind == yaml.AliasNode:
		if a.Alias.Line != b.Alias.Line || a.Alias.Column != b.Alias.Column {
			return fmt.Errorf("%s: aliases point at different nodes", path)
		}
		return nil
	}
	for i := range a.Content {
		if err := sameTree(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", path, i)); err != nil {
			return err
		}
	}
	return nil
}

// verifyReader is Verify for the Reader: it takes a text exactly when the
// fast parser does, and reading all of a text it takes gives the values of
// yaml.v3's tree, in order — each collection's Len first, and again with
// some collections skipped and the top-level sequences read in two parts
// (Cut, Leave, Join), as statefile reads them, and the characters
// checked on another goroutine. It also reads yml with no check of its
// characters, which must not panic whatever they are.
func verifyReader(yml []byte) (bool, error) {
	whole, wholeErr := parseWhole(yml)
	fast := fastParse(yml) != nil
	// Any bytes at all: a large text is read before its characters are
	// checked.
	readAll(yml, nil, true, checkNot)
	for k, cut := range []bool{false, true} {
		taken, diff := readAll(yml, whole, cut, []int{checkNow, checkAside}[k])
		switch {
		case taken != fast:
			return taken, fmt.Errorf("the Reader takes the text (%v) where the fast parser does not, or the other way round (cut %v)", taken, cut)
		case taken && wholeErr != nil:
			return true, fmt.Errorf("the Reader accepted YAML that yaml.v3 rejects: %v", wholeErr)
		case taken && diff != "":
			return true, fmt.Errorf("the Reader differs from yaml.v3 (cut %v): %s", cut, diff)
		}
	}
	if fast {
		if err := verifyMemoOf(yml); err != nil {
			return true, err
		}
	}
	return fast, nil
}

// verifyMemoOf checks that MemoOf records for yml, a text the fast parser
// takes, the memo ParseMemo records: the same top-level sections, and in
// each the same entries at the same places and lines, with the same keys.
func verifyMemoOf(yml []byte) error {
	lean := func(key string) bool { return len(key)%2 == 0 } // some of each
	_, want, _ := ParseMemo(yml, yamltext.NewLineMap(yml, 0), nil, lean)
	if want == nil {
		return fmt.Errorf("ParseMemo kept no memo of a text the fast parser takes")
	}
	got := MemoOf(yml, lean, nil)
	if got.rootIndent != want.rootIndent || len(got.sections) != len(want.sections) {
		return fmt.Errorf("MemoOf: root at %d with %d sections, ParseMemo: %d with %d", got.rootIndent, len(got.sections), want.rootIndent, len(want.sections))
	}
	for key, ws := range want.sections {
		gs, ok := got.sections[key]
		if !ok || (gs == nil) != (ws == nil) {
			return fmt.Errorf("MemoOf: section %q is %v, ParseMemo: %v", key, gs, ws)
		}
		if ws == nil {
			continue
		}
		if gs.kind != ws.kind || gs.lean != ws.lean || len(gs.entries) != len(ws.entries) {
			return fmt.Errorf("MemoOf: section %q kind %v lean %v with %d entries, ParseMemo: %v %v %d", key, gs.kind, gs.lean, len(gs.entries), ws.kind, ws.lean, len(ws.entries))
		}
		for i, we := range ws.entries {
			ge := gs.entries[i]
			gk, gok := gs.key(i)
			wk, wok := ws.key(i)
			if ge != we || gok != wok || gk != wk {
				return fmt.Errorf("MemoOf: %s[%d] is %+v key %q, ParseMemo: %+v key %q", key, i, ge, gk, we, wk)
			}
		}
	}
	return nil
}

// readAll reads yml with a Reader, comparing each value with the node of
// tree (the whole parse; nil when it failed) at the same place; it returns
// whether the Reader took yml and the first difference. With cut, it
// skips the collections at odd depths and reads the top-level sequences
// in two parts. check says how the Reader checks the characters.
func readAll(yml []byte, tree *yaml.Node, cut bool, check int) (bool, string) {
	r := newReader(yml, yamltext.NewLineMap(yml, 0), check)
	if r == nil {
		return false, ""
	}
	w := &readWalk{cut: cut}
	root := r.Root()
	w.value(r, root, tree, "root", 0)
	if !r.Finish() {
		return false, ""
	}
	return true, w.diff
}

type readWalk struct {
	cut  bool
	diff string
}

func (w *readWalk) differ(path, format string, args ...any) {
	if w.diff == "" {
		w.diff = path + ": " + fmt.Sprintf(format, args...)
	}
}

// value compares v, which r just returned, with n and reads the rest of it.
func (w *readWalk) value(r *Reader, v Value, n *yaml.Node, path string, depth int) {
	if r.Failed() {
		return
	}
	switch {
	case n == nil:
		w.differ(path, "no node in the tree")
	case v.Kind != n.Kind || v.Tag.String() != n.ShortTag() || int(v.Line) != n.Line:
		w.differ(path, "kind %v, tag %s, line %d; the tree's %v, %s, %d", v.Kind, v.Tag, v.Line, n.Kind, n.ShortTag(), n.Line)
	case v.Kind == yaml.ScalarNode && v.Text != n.Value:
		w.differ(path, "value %q, the tree's %q", v.Text, n.Value)
	}
	if v.Kind != yaml.MappingNode && v.Kind != yaml.SequenceNode {
		return
	}
	var kids []*yaml.Node
	if n != nil {
		kids = n.Content
	}
	per := 1
	if v.Kind == yaml.MappingNode {
		per = 2
	}
	if w.cut && depth%2 == 1 && !v.flow && (depth != 1 || v.Kind != yaml.SequenceNode) {
		r.Skip(v)
		return
	}
	if l := r.Len(v); l != len(kids)/per && n != nil {
		w.differ(path, "Len %d, the tree has %d entries", l, len(kids)/per)
	}
	i := 0
	if w.cut && depth == 1 && v.Kind == yaml.SequenceNode {
		if second, rest, total, from, ok := r.Cut(&v, 2); ok {
			i = w.entries(r, &v, kids, path, depth, 0)
			if i != from {
				w.differ(path, "the first part of the cut has %d entries, Cut said %d", i, from)
			}
			r.Leave(second)
			i = w.entries(second, &rest, kids, path, depth, i)
			if i != total {
				w.differ(path, "the cut sequence has %d entries, Cut said %d", i, total)
			}
			r.Join(second)
			if i != len(kids)/per && n != nil {
				w.differ(path, "%d entries, the tree has %d", i, len(kids)/per)
			}
			return
		}
	}
	i = w.entries(r, &v, kids, path, depth, 0)
	if i != len(kids)/per && n != nil && !r.Failed() {
		w.differ(path, "%d entries, the tree has %d", i, len(kids)/per)
	}
}

// entries reads the entries of c from the i-th on, comparing them with
// kids, and returns the index after the last.
func (w *readWalk) entries(r *Reader, c *Value, kids []*yaml.Node, path string, depth, i int) int {
	for {
		k, e, ok := r.Next(c)
		if !ok {
			return i
		}
		p := fmt.Sprintf("%s/%d", path, i)
		if c.Kind == yaml.MappingNode {
			w.value(r, k, kid(kids, 2*i), p+"/key", depth+1)
			w.value(r, e, kid(kids, 2*i+1), p, depth+1)
		} else {
			w.value(r, e, kid(kids, i), p, depth+1)
		}
		r.Skip(e)
		i++
	}
}

func kid(kids []*yaml.Node, i int) *yaml.Node {
	if i < len(kids) {
		return kids[i]
	}
	return nil
}
