package statefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
)

// Hostile input must end in an error or a result, never a hang or a
// panic. These tests assert the outcome only; how long they take is for
// the benchmarks (a hang shows up as the test binary's timeout).

const lolBomb = `---
objective:
  goal: "billion laughs"
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
---
`

func wantAliasError(t *testing.T, data string, firstLine, lastLine int) {
	t.Helper()
	_, err := Parse([]byte(data))
	e, ok := ParseError(err)
	if !ok || !strings.Contains(e.Msg, "expands too many aliases") {
		t.Fatalf("err = %v, want the alias error", err)
	}
	if e.Line < firstLine || e.Line > lastLine {
		t.Errorf("alias error on line %d, want within %d–%d", e.Line, firstLine, lastLine)
	}
	if !strings.Contains(e.Hint, "anchors and aliases") {
		t.Errorf("hint = %q", e.Hint)
	}
}

func TestAliasBombs(t *testing.T) {
	t.Run("billion laughs", func(t *testing.T) {
		wantAliasError(t, lolBomb, 5, 13)
	})
	t.Run("one wide list aliased many times", func(t *testing.T) {
		// 10,000 aliases of a 100,000-item list: only 10,000 alias
		// references, but 10^9 nodes to decode.
		var b strings.Builder
		b.WriteString("---\nx: &wide [")
		b.WriteString(strings.Repeat("1,", 100000))
		b.WriteString("1]\ny: [")
		b.WriteString(strings.Repeat("*wide,", 10000))
		b.WriteString("*wide]\n---\n")
		wantAliasError(t, b.String(), 3, 3)
	})
	t.Run("aliases in known fields", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("---\nx-deps: &deps [")
		b.WriteString(strings.Repeat("A1, ", 5000))
		b.WriteString("A1]\natoms:\n")
		for range 1000 {
			b.WriteString("  - {id: A1, status: pending, depends_on: *deps}\n")
		}
		b.WriteString("---\n")
		wantAliasError(t, b.String(), 4, 1003)
	})
	t.Run("self-referential alias", func(t *testing.T) {
		doc, err := Parse([]byte("---\nx: &a [*a, *a]\natoms: []\n---\n"))
		if err != nil {
			if _, ok := ParseError(err); !ok {
				t.Fatalf("err = %v", err)
			}
			return
		}
		if _, ok := doc.State.Extra.Get("x"); !ok {
			t.Error("x lost")
		}
	})
	t.Run("self-referential checklist", func(t *testing.T) {
		doc, err := Parse([]byte("---\nobjective:\n  base_case:\n    checklist: &c\n      - item: loop\n        group: *c\n---\n"))
		if err != nil {
			if _, ok := ParseError(err); !ok {
				t.Fatalf("err = %v", err)
			}
			return
		}
		model.Validate(doc.State) // must terminate too
	})
}

func TestDeepNesting(t *testing.T) {
	t.Run("100,000-deep flow sequences", func(t *testing.T) {
		in := "---\nx: " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n---\n"
		_, err := Parse([]byte(in))
		e, ok := ParseError(err)
		if !ok || !strings.Contains(e.Msg, "exceeded max depth") || e.Line != 2 {
			t.Fatalf("err = %v", err)
		}
		if !strings.Contains(e.Hint, "nests too deeply") {
			t.Errorf("hint = %q", e.Hint)
		}
	})
	t.Run("100,000-deep flow mappings after other lines", func(t *testing.T) {
		in := "---\nobjective:\n  goal: deep\nx: " + strings.Repeat("{a: ", 100000) + "1" + strings.Repeat("}", 100000) + "\n---\n"
		_, err := Parse([]byte(in))
		if e, ok := ParseError(err); !ok || !strings.Contains(e.Msg, "exceeded max depth") || e.Line != 4 {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("5,000-deep block sequences", func(t *testing.T) {
		in := "---\nx:\n" + strings.Repeat("- ", 5000) + "1\natoms: []\n---\n"
		doc := mustParse(t, in)
		v, _ := doc.State.Extra.Get("x")
		// Unknown values are kept for display down to a fixed depth.
		depth := 0
		for {
			l, ok := v.([]any)
			if !ok {
				break
			}
			depth++
			v = l[0]
		}
		if depth < 100 || depth > 5000 || v != "…" {
			t.Errorf("kept %d levels, then %#v", depth, v)
		}
	})
	t.Run("5,000-deep block mappings", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("---\natoms:\n  - id: A1\n    status: pending\n    depends_on: []\n    deep:\n")
		for i := 1; i <= 5000; i++ {
			b.WriteString(strings.Repeat(" ", 4+i))
			b.WriteString("k:\n")
		}
		b.WriteString(strings.Repeat(" ", 5005) + "leaf: 1\n---\n")
		doc := mustParse(t, b.String())
		if a := doc.State.Atoms; len(a) != 1 || a[0].ID != "A1" {
			t.Fatalf("atoms = %+v", a)
		}
		if _, ok := doc.State.Atoms[0].Extra.Get("deep"); !ok {
			t.Error("deep lost")
		}
	})
	t.Run("3,000-deep checklist", func(t *testing.T) {
		in := "---\nobjective:\n  base_case:\n    checklist: " +
			strings.Repeat("[{item: x, group: ", 3000) + "[]" + strings.Repeat("}]", 3000) + "\n---\n"
		doc := mustParse(t, in)
		var found bool
		for _, p := range doc.State.Problems {
			if strings.Contains(p.Message, "nests more than 200 levels deep") && p.Line == 4 {
				found = true
			}
		}
		if !found {
			t.Errorf("Problems = %+v", doc.State.Problems)
		}
		if r := model.Validate(doc.State); r.Valid {
			t.Error("a checklist nested past the limit validates")
		}
	})
}

func TestSizeLimit(t *testing.T) {
	dir := t.TempDir()
	t.Run("default limit", func(t *testing.T) {
		path := filepath.Join(dir, "big.md")
		if err := os.WriteFile(path, []byte("---\natoms: []\n---\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		// One byte over 64 MiB (sparse: nothing is written).
		if err := os.Truncate(path, DefaultMaxSize+1); err != nil {
			t.Fatal(err)
		}
		for _, load := range []func() error{
			func() error { _, err := ReadFile(path, 0); return err },
			func() error { _, err := Load(path, 0); return err },
			func() error { _, err := LoadPhaseLoop(path, 0); return err },
		} {
			err := load()
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("err = %v, want ErrTooLarge", err)
			}
			want := "state file " + path + ": the file is 64.0 MiB (67108865 bytes), larger than the 64.0 MiB (67108864 bytes) limit"
			if !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %q\nwant prefix %q", err, want)
			}
		}
	})
	t.Run("given limit", func(t *testing.T) {
		path := filepath.Join(dir, "small.md")
		data := []byte("---\natoms: []\n---\n" + strings.Repeat("x", 3000))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path, 1024)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "the file is 2.9 KiB, larger than the 1.0 KiB limit") {
			t.Errorf("err = %v", err)
		}
		if _, err := Load(path, int64(len(data))); err != nil {
			t.Errorf("a file exactly at the limit: %v", err)
		}
	})
}
