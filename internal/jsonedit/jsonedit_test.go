package jsonedit

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// randomValue is a random JSON value of depth at most d.
func randomValue(r *rand.Rand, d int) any {
	switch k := r.IntN(7); {
	case d <= 0 || k < 2:
		switch r.IntN(4) {
		case 0:
			return "s" + strconv.Itoa(r.IntN(100)) + []string{"", "\u00e9", `"q"`, "\\", "\n"}[r.IntN(5)]
		case 1:
			return float64(r.IntN(1000)) - 500
		case 2:
			return r.IntN(2) == 0
		}
		return nil
	case k < 5:
		m := map[string]any{}
		for i := range r.IntN(4) {
			m["k"+strconv.Itoa(i)] = randomValue(r, d-1)
		}
		return m
	default:
		a := []any{}
		for range r.IntN(4) {
			a = append(a, randomValue(r, d-1))
		}
		return a
	}
}

// layout writes v in one of several styles: compact, indented by two or
// four spaces or a tab, with CRLF.
func layout(r *rand.Rand, v any) []byte {
	b, _ := json.Marshal(v)
	var out bytes.Buffer
	switch r.IntN(5) {
	case 0:
		return b
	case 1:
		json.Indent(&out, b, "", "  ")
	case 2:
		json.Indent(&out, b, "", "    ")
	case 3:
		json.Indent(&out, b, "", "\t")
	default:
		json.Indent(&out, b, "", "  ")
		return bytes.ReplaceAll(out.Bytes(), []byte("\n"), []byte("\r\n"))
	}
	return out.Bytes()
}

// containers lists every object and array of n, with a path to set its
// value in the decoded tree.
func containers(n *Node, path []any, out *[]struct {
	n    *Node
	path []any
}) {
	if n.Kind != Object && n.Kind != Array {
		return
	}
	*out = append(*out, struct {
		n    *Node
		path []any
	}{n, append([]any{}, path...)})
	for _, m := range n.Members {
		containers(m.Value, append(path, m.Key), out)
	}
	for i, e := range n.Elems {
		containers(e, append(path, i), out)
	}
}

func at(v any, path []any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v
}

// Random edits on random documents in random layouts: the result is JSON,
// decodes to the document with the edit made, and keeps the text around
// the edit: an addition inserts one run of bytes, a removal takes one out.
func TestEditsKeepEverythingElse(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 24))
	for i := range 3000 {
		doc := map[string]any{"a": randomValue(r, 3), "b": randomValue(r, 3)}
		b := layout(r, doc)
		root, err := Parse(b)
		if err != nil {
			t.Fatalf("%d: %v\n%s", i, err, b)
		}
		var cs []struct {
			n    *Node
			path []any
		}
		containers(root, nil, &cs)
		c := cs[r.IntN(len(cs))]
		var want any
		json.Unmarshal(b, &want)
		target := at(want, c.path)
		var out []byte
		add := r.IntN(2) == 0
		nv := randomValue(r, 2)
		switch {
		case c.n.Kind == Object && add:
			key := "new" + strconv.Itoa(i)
			out, err = AddMember(b, c.n, key, nv)
			target.(map[string]any)[key] = nv
		case c.n.Kind == Array && add:
			out, err = AddElement(b, c.n, nv)
			set(want, c.path, append(target.([]any), nv))
		case c.n.Kind == Object && len(c.n.Members) > 0:
			k := r.IntN(len(c.n.Members))
			delete(target.(map[string]any), c.n.Members[k].Key)
			out, err = RemoveMember(b, c.n, k)
		case c.n.Kind == Array && len(c.n.Elems) > 0:
			k := r.IntN(len(c.n.Elems))
			arr := target.([]any)
			set(want, c.path, append(append([]any{}, arr[:k]...), arr[k+1:]...))
			out, err = RemoveElement(b, c.n, k)
		default:
			continue
		}
		if err != nil {
			t.Fatalf("%d: %v\n%s", i, err, b)
		}
		var got any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%d: not JSON: %v\n%s", i, err, out)
		}
		wantJSON, _ := json.Marshal(want)
		var wantV any
		json.Unmarshal(wantJSON, &wantV)
		if !reflect.DeepEqual(got, wantV) {
			t.Fatalf("%d: got %s\nwant %s\nfrom %s", i, out, wantJSON, b)
		}
		// One run inserted or removed: the common prefix and suffix cover
		// the shorter text.
		short, long := b, out
		if len(out) < len(b) {
			short, long = out, b
		}
		p := 0
		for p < len(short) && short[p] == long[p] {
			p++
		}
		s := 0
		for s < len(short)-p && short[len(short)-1-s] == long[len(long)-1-s] {
			s++
		}
		if p+s != len(short) {
			t.Fatalf("%d: more than one run changed:\n%s\n->\n%s", i, b, out)
		}
	}
}

func set(v any, path []any, nv any) {
	if len(path) == 0 {
		return
	}
	parent := at(v, path[:len(path)-1])
	switch k := path[len(path)-1].(type) {
	case string:
		parent.(map[string]any)[k] = nv
	case int:
		parent.([]any)[k] = nv
	}
}

// Text that is not JSON is refused with its line and column.
func TestParseSaysWhere(t *testing.T) {
	_, err := Parse([]byte("{\n  \"a\": 1,\n  \"b\": ]\n}"))
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("%v", err)
	}
	if _, err := Parse([]byte("  ")); err == nil || !strings.Contains(err.Error(), "no JSON value") {
		t.Fatalf("%v", err)
	}
}
