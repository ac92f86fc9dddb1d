package jsonstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

// TestWriterWritesWhatEncodeAndIndentWrite: the same bytes as
// json.Encoder without HTML escaping, then json.Indent, for nesting, empty
// containers, null lists and strings that need escaping.
func TestWriterWritesWhatEncodeAndIndentWrite(t *testing.T) {
	odd := "quote \" backslash \\ tab \t nl \n bell \a <html> & \u2028 bad \xff é"
	var got bytes.Buffer
	j := New(&got)
	j.Open('{')
	j.Key("s")
	j.Str(odd)
	j.Key("n")
	j.Int(-42)
	j.Key("b")
	j.Bool(true)
	j.Key("empty")
	j.Strs([]string{}, false)
	j.Key("nil")
	j.Strs(nil, true)
	j.Key("list")
	j.Strs([]string{"a", odd}, false)
	j.Key("obj")
	j.Open('{')
	j.Close('}')
	j.Close('}')
	if err := j.End(); err != nil {
		t.Fatal(err)
	}
	v := map[string]any{"s": odd, "n": -42, "b": true, "empty": []string{}, "nil": nil, "list": []string{"a", odd}, "obj": map[string]any{}}
	var enc bytes.Buffer
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		t.Fatal(err)
	}
	// json.Encoder sorts map keys: write them in that order for the
	// comparison by decoding both.
	var want bytes.Buffer
	if err := json.Indent(&want, enc.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	var a, b any
	if json.Unmarshal(got.Bytes(), &a) != nil || json.Unmarshal(want.Bytes(), &b) != nil {
		t.Fatalf("not JSON:\n%s", got.Bytes())
	}
	gotS, _ := json.Marshal(a)
	wantS, _ := json.Marshal(b)
	if !bytes.Equal(gotS, wantS) {
		t.Fatalf("values differ:\n%s\nwant\n%s", got.Bytes(), want.Bytes())
	}
	// Byte for byte, for a value whose order is fixed.
	var one bytes.Buffer
	w := New(&one)
	w.Open('[')
	w.Str(odd)
	w.Strs(nil, false)
	w.Close(']')
	_ = w.End()
	enc.Reset()
	_ = e.Encode([]any{odd, []string{}})
	want.Reset()
	_ = json.Indent(&want, enc.Bytes(), "", "  ")
	if one.String() != want.String() {
		t.Fatalf("got\n%q\nwant\n%q", one.String(), want.String())
	}
}

// Value writes a value nested at any depth as Encode writes it inside
// its parent: the same bytes as encoding the whole.
func TestValueNestsAsEncodeDoes(t *testing.T) {
	type inner struct {
		A []int           `json:"a"`
		M map[string]bool `json:"m"`
		S string          `json:"s"`
		E []string        `json:"e"`
	}
	type outer struct {
		K  string `json:"k"`
		In struct {
			X inner  `json:"x"`
			N *inner `json:"n"`
		} `json:"in"`
	}
	v := outer{K: "k"}
	v.In.X = inner{A: []int{1, 2}, M: map[string]bool{"b": true, "a": false}, S: "bidi \u202e <&>", E: []string{}}
	var want bytes.Buffer
	if err := Encode(&want, v); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	j := New(&got)
	j.Open('{')
	j.Key("k")
	j.Str("k")
	j.Key("in")
	j.Open('{')
	j.Key("x")
	if err := j.Value(v.In.X); err != nil {
		t.Fatal(err)
	}
	j.Key("n")
	if err := j.Value(v.In.N); err != nil {
		t.Fatal(err)
	}
	j.Close('}')
	j.Close('}')
	if err := j.End(); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Fatalf("Value wrote\n%s\nEncode\n%s", got.Bytes(), want.Bytes())
	}
}

// TestWriterDeepAndPlain compares the Writer byte for byte with Encode on
// lists nested deeper than the indentation it writes at once (indents),
// holding strings that need no escape and strings that do.
func TestWriterDeepAndPlain(t *testing.T) {
	strs := []string{"plain", "", "a b ~", "del \x7f", "é", "quote \"", "back \\", "ctl \x01", "bidi \u202e"}
	var v any = strs
	var got bytes.Buffer
	j := New(&got)
	const depth = 20
	for range depth {
		j.Open('[')
		v = []any{v}
	}
	j.Strs(strs, false)
	for range depth {
		j.Close(']')
	}
	if err := j.End(); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := Encode(&want, v); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Fatalf("got\n%s\nwant\n%s", got.String(), want.String())
	}
}

// failAfter accepts n bytes, then fails every write.
type failAfter struct {
	n     int
	wrote bytes.Buffer
	calls int
}

var errFull = errors.New("disk full")

func (f *failAfter) Write(p []byte) (int, error) {
	f.calls++
	if f.wrote.Len()+len(p) > f.n {
		k := f.n - f.wrote.Len()
		f.wrote.Write(p[:k])
		return k, errFull
	}
	return f.wrote.Write(p)
}

// TestWriterHoldsAndFlushes: a document many times the Writer's buffer
// comes out whole, in writes of about the buffer's size (not one per
// element, nor all at the end); a write that fails ends the writing, and
// End says why.
func TestWriterHoldsAndFlushes(t *testing.T) {
	list := make([]string, 20000)
	for i := range list {
		list[i] = strings.Repeat("x", i%50) + "\u2028\"" + strconv.Itoa(i)
	}
	write := func(w io.Writer) error {
		j := New(w)
		j.Open('{')
		j.Key("list")
		j.Strs(list, false)
		j.Close('}')
		return j.End()
	}
	var want bytes.Buffer
	if err := Encode(&want, map[string]any{"list": list}); err != nil {
		t.Fatal(err)
	}
	f := &failAfter{n: 1 << 30}
	if err := write(f); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(f.wrote.Bytes(), want.Bytes()) {
		t.Fatalf("%d bytes differ from Encode's %d", f.wrote.Len(), want.Len())
	}
	if most := want.Len()/flushAt + 1; f.calls > most || f.calls < most-1 {
		t.Fatalf("%d writes of %d bytes, want about %d", f.calls, want.Len(), most)
	}
	short := &failAfter{n: 100 << 10}
	if err := write(short); !errors.Is(err, errFull) {
		t.Fatalf("End: %v, want the write's error", err)
	}
	if short.calls != 2 || !bytes.Equal(short.wrote.Bytes(), want.Bytes()[:100<<10]) {
		t.Fatalf("%d writes after the failure, %d bytes", short.calls, short.wrote.Len())
	}
}
