package jsonstream

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/aot-loop/aot-tui/internal/textsafe"
	"github.com/charmbracelet/x/exp/golden"
)

// every is one of each kind of character the rule escapes, and its
// neighbours that it leaves alone: C0 (named and not), DEL, C1 (CSI, ST,
// OSC), the Arabic letter mark, LRM/RLM, the embeddings and overrides, the
// isolates, the line and paragraph separators; then ZWJ, NBSP, é, 文, 🚀,
// an invalid byte, and HTML characters, which stay as they are.
const every = "nul\x00 bel\a tab\t nl\n esc\x1b[31m del\x7f c1\u0080 csi\u009b31m st\u009c osc\u009d0;t " +
	"alm\u061c lrm\u200e rlm\u200f lre\u202a rle\u202b pdf\u202c lro\u202d rlo\u202e " +
	"lri\u2066 rli\u2067 fsi\u2068 pdi\u2069 ls\u2028 ps\u2029 | zwj\u200d nbsp\u00a0 é 文 🚀 bad\xff <a href=\"x\">&amp;</a>"

// The escaping, byte for byte (testdata/TestEscapeGolden.golden; -update
// rewrites it).
func TestEscapeGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Encode(&b, map[string]any{"text": every, "list": []string{every[:20], "\u202e"}}); err != nil {
		t.Fatal(err)
	}
	golden.RequireEqual(t, b.Bytes())
}

// checkSafe fails when the JSON text out carries an unsafe rune raw (the
// line breaks of its indentation aside), is not JSON, or does not decode
// to what encoding/json's own encoding of v decodes to.
func checkSafe(t *testing.T, out []byte, v any) {
	t.Helper()
	for _, r := range string(out) {
		if r != '\n' && textsafe.Unsafe(r) {
			t.Fatalf("%U raw in %q", r, out)
		}
	}
	plain, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var got, want any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("not JSON: %v\n%q", err, out)
	}
	if err := json.Unmarshal(plain, &want); err != nil {
		t.Fatal(err)
	}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if !bytes.Equal(g, w) {
		t.Fatalf("decodes to %s, want %s", g, w)
	}
}

// Encode, Marshal and the Writer escape alike, and the value survives.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "plain", every, "\u009b", "\xc2", "\xc2\x9b\xff", "\u202e\u202e", "a\"b\\c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := []string{s, "k"}
		var enc bytes.Buffer
		if err := Encode(&enc, v); err != nil {
			t.Fatal(err)
		}
		checkSafe(t, enc.Bytes(), v)
		m, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		checkSafe(t, m, v)
		var w bytes.Buffer
		j := New(&w)
		j.Strs(v, false)
		if err := j.End(); err != nil {
			t.Fatal(err)
		}
		if w.String() != enc.String() {
			t.Fatalf("Writer wrote\n%q\nEncode\n%q", w.String(), enc.String())
		}
	})
}

// Escape hands back JSON that needs nothing escaped as it is, uncopied.
func TestEscapeCopiesNothingWhenNothingIsUnsafe(t *testing.T) {
	for _, s := range []string{"ascii only", "é 文 🚀 \u00a0", "<&>"} {
		plain, _ := json.Marshal(s)
		if out := Escape(plain); &out[0] != &plain[0] || !bytes.Equal(out, plain) {
			t.Fatalf("Escape(%q) copied or changed it: %q", plain, out)
		}
	}
}

// BenchmarkEscape is the pass Encode adds over its output: a megabyte of
// JSON with some non-ASCII text and nothing to escape (the common case),
// and the same with an override in every record.
func BenchmarkEscape(b *testing.B) {
	var plain, hostile bytes.Buffer
	for i := 0; plain.Len() < 1<<20; i++ {
		rec := map[string]any{"id": i, "description": "Implement the billing schema — étape 文档 " + string(rune('a'+i%26)), "depends_on": []string{"A1", "A2"}}
		line, _ := json.Marshal(rec)
		plain.Write(line)
		rec["description"] = "evil \u202e override"
		line, _ = json.Marshal(rec)
		hostile.Write(line)
	}
	for _, c := range []struct {
		name string
		data []byte
	}{{"nothing-to-escape", plain.Bytes()}, {"an-override-a-record", hostile.Bytes()}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			b.ReportAllocs()
			for b.Loop() {
				Escape(c.data)
			}
		})
	}
}

// Every rune at or above DEL that textsafe forbids starts with a byte
// firstUnsafe stops at.
func TestLeadsCoverEveryUnsafeRune(t *testing.T) {
	buf := make([]byte, 4)
	for r := rune(0x7f); r <= 0x10ffff; r++ {
		if textsafe.Unsafe(r) {
			utf8.EncodeRune(buf, r)
			if !leads[buf[0]] {
				t.Fatalf("%U starts with %#x, which firstUnsafe passes over", r, buf[0])
			}
		}
	}
}
