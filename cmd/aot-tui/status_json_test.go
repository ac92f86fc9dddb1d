package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/statefile"
)

// TestStatusJSONStreamsTheSame checks that status --json, written in one
// pass by writeAoTStatusJSON, gives the bytes it gave when it encoded the
// aotStatus struct with encoding/json and indented the result: on
// generated loops of many shapes, the fixtures, and states whose text
// holds everything a JSON encoder escapes.
func TestStatusJSONStreamsTheSame(t *testing.T) {
	var docs []*statefile.Document
	// raw are the bytes of docs[k] (nil for a state made in memory).
	var raw [][]byte
	add := func(data []byte) {
		doc, err := statefile.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc)
		raw = append(raw, data)
	}
	for _, n := range []int{1, 3, 20, 150, 1000} {
		for seed := uint64(1); seed <= 4; seed++ {
			spec, _ := gen.GenerateSpec(n, seed)
			add(spec)
			for _, status := range []string{"running", "pending", "completed"} {
				add(gen.Generate(gen.Options{Atoms: n, Seed: seed, Resolved: float64(seed) / 5, ORGroups: n / 10, Decompositions: n / 12, Status: status}))
			}
		}
	}
	files, _ := filepath.Glob("../../testdata/*.md")
	// Files the loop's own tools read otherwise (their LoopRead holds
	// findings, and the outlook follows the hook's reading).
	more, _ := filepath.Glob("../../testdata/looptools/*.md")
	for _, name := range append(files, more...) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		add(data)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 200; k++ {
		docs = append(docs, hostile(r, docs[r.IntN(len(docs))]))
		raw = append(raw, nil)
	}
	for k, doc := range docs {
		l := &loaded{Target: statefile.Target{Path: fmt.Sprintf("dir %d/aot-loop-state.md", k), Kind: statefile.KindAoT, Exists: true},
			AoT: doc, Facts: model.Derive(doc.State)}
		if k%5 == 0 && len(doc.State.Atoms) > 0 {
			// Atoms in progress before and gone now (read from a journal).
			a := doc.State.Atoms[0]
			l.Gone = []model.Gone{{ID: a.ID + "-gone", Description: a.Description, Iteration: k}, {ID: "A0", Iteration: k}}
		}
		var want, got bytes.Buffer
		writeJSON(&want, aotStatusJSON(l))
		if k%2 == 1 {
			// As status --json loads it: the facts derived while the
			// atoms are written, and the loop tools' reading made
			// meanwhile (statefile.ParseLoopReadLater).
			l.Facts = nil
			if k < len(raw) && raw[k] != nil {
				doc, loopRead, err := statefile.ParseLoopReadLater(raw[k])
				if err != nil {
					t.Fatal(err)
				}
				l.AoT, l.loopRead = doc, loopRead
			}
		}
		writeAoTStatusJSON(&got, l)
		if l.Facts == nil {
			t.Fatalf("document %d: no facts after writing", k)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			g, w := got.Bytes(), want.Bytes()
			i := 0
			for i < len(g) && i < len(w) && g[i] == w[i] {
				i++
			}
			t.Fatalf("document %d: output differs at byte %d:\n got %q\nwant %q", k, i, g[max(0, i-80):min(len(g), i+80)], w[max(0, i-80):min(len(w), i+80)])
		}
	}
}

// hostile returns a copy of doc's state with text a JSON encoder must
// escape, a stop reason or none, repeated binding ids, and validation
// findings.
func hostile(r *rand.Rand, doc *statefile.Document) *statefile.Document {
	bits := []string{"\"", "\\", "\n", "\r", "\t", "\b", "\f", "\x00", "\x01", "\x1f", "\x7f", "<a&b>", "\u2028", "\u2029",
		"é", "日本", "🙂", "\xff", "\xc3", "\xe2\x80", "'", "/", "\u0085", "\ufeff", " ", "x"}
	text := func() string {
		var b []byte
		for range r.IntN(6) {
			b = append(b, bits[r.IntN(len(bits))]...)
		}
		return string(b)
	}
	s := *doc.State
	s.Atoms = append([]model.Atom(nil), s.Atoms...)
	s.Bindings = append([]model.Binding(nil), s.Bindings...)
	for i := range s.Atoms {
		if r.IntN(3) == 0 {
			s.Atoms[i].Description = text()
		}
		if r.IntN(10) == 0 {
			s.Atoms[i].ID = text()
		}
		if r.IntN(10) == 0 {
			s.Atoms[i].ORGroup = text()
		}
		if r.IntN(10) == 0 {
			s.Atoms[i].DependsOn = nil
		}
	}
	for i := range s.Bindings {
		if r.IntN(3) == 0 {
			s.Bindings[i].Summary = text()
		}
		if r.IntN(5) == 0 {
			s.Bindings[i].AtomID = text()
		}
		if r.IntN(5) == 0 {
			s.Bindings[i].Artifacts = nil
		}
	}
	if len(s.Bindings) > 1 && r.IntN(2) == 0 {
		s.Bindings = append(s.Bindings, s.Bindings[r.IntN(len(s.Bindings))]) // an id twice
	}
	s.Control.StopReason = ""
	if r.IntN(2) == 0 {
		s.Control.StopReason = text()
	}
	s.Control.Status = model.LoopStatus(text())
	s.Objective.Goal = text()
	d := *doc
	d.State = &s
	return &d
}

// collectLess puts the collector's settings back, also when calls overlap
// (tests run status commands at once).
func TestCollectLessRestores(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: collectLess leaves things as they are")
	}
	percent := debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	limit := debug.SetMemoryLimit(-1)
	a := collectLess()
	b := collectLess()
	if got := debug.SetMemoryLimit(-1); got != oneShotMemoryLimit {
		t.Errorf("memory limit during the command: %d, want %d", got, oneShotMemoryLimit)
	}
	a()
	b()
	if got := debug.SetGCPercent(percent); got != percent {
		t.Errorf("GC percent after: %d, want %d", got, percent)
	}
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("memory limit after: %d, want %d", got, limit)
	}
}
