package statefile

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
)

// loopReading is what the loop's own line-based tools read from a state
// file: the stop hook's counts and control fields, and the atoms as its
// Python scripts parse them.
type loopReading struct {
	counts            map[string]int
	status, iteration string
	atoms             []loopAtom
}

type loopAtom struct {
	id, status string
	deps       []string
	flowDeps   bool
}

// frontmatterLikeAwk is awk '/^---$/{p=!p; if(!p) exit; next} p'.
func frontmatterLikeAwk(data []byte) []string {
	var out []string
	p := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if line == "---" {
			p = !p
			if !p {
				break
			}
			continue
		}
		if p {
			out = append(out, line)
		}
	}
	return out
}

var (
	hookIteration = regexp.MustCompile(`^  iteration:`)
	hookStatus    = regexp.MustCompile(`^  status:`)
)

// afterColon is the text after the first ": ", without a trailing
// comment or quotes, as the hook's sed and the scripts take it.
func afterColon(line string) string {
	_, v, ok := strings.Cut(line, ": ")
	if !ok {
		_, v, _ = strings.Cut(line, ":")
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	return strings.Trim(strings.TrimSpace(v), `"'`)
}

func readLikeLoop(data []byte) loopReading {
	fm := frontmatterLikeAwk(data)
	r := loopReading{counts: map[string]int{}}
	for _, st := range []string{"pending", "in_progress", "resolved"} {
		// grep -c '^    status: <st>'; the hook's patterns end there, so
		// "pending" would also count "pending_x": match the word.
		re := regexp.MustCompile(`^    status: ` + st + `\b`)
		for _, l := range fm {
			if re.MatchString(l) && afterColon(l) == st {
				r.counts[st]++
			}
		}
	}
	for _, l := range fm {
		if r.iteration == "" && hookIteration.MatchString(l) {
			r.iteration = afterColon(l)
		}
		if r.status == "" && hookStatus.MatchString(l) {
			r.status = afterColon(l)
		}
	}
	// The scripts: "- id:" starts an atom; depends_on is read only in flow
	// style, split on commas with quotes stripped.
	in := false
	var cur *loopAtom
	for _, l := range fm {
		if strings.HasPrefix(l, "atoms:") {
			in = true
			continue
		}
		if !in {
			continue
		}
		if l != "" && l[0] != ' ' && l[0] != '#' {
			break
		}
		s := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(s, "- id:"):
			r.atoms = append(r.atoms, loopAtom{id: afterColon(s[2:])})
			cur = &r.atoms[len(r.atoms)-1]
		case cur != nil && strings.HasPrefix(s, "status:"):
			cur.status = afterColon(s)
		case cur != nil && strings.HasPrefix(s, "depends_on:"):
			v := afterColon(s)
			if strings.HasPrefix(v, "[") {
				cur.flowDeps = true
				for _, d := range strings.Split(strings.Trim(v, "[]"), ",") {
					if d = strings.Trim(strings.TrimSpace(d), `"'`); d != "" {
						cur.deps = append(cur.deps, d)
					}
				}
			}
		}
	}
	return r
}

// agree checks the line-based reading against Parse's State.
func agree(data []byte) error {
	doc, err := Parse(data)
	if err != nil {
		return fmt.Errorf("does not parse: %v", err)
	}
	st := doc.State
	lr := readLikeLoop(data)
	want := map[string]int{}
	for _, a := range st.Atoms {
		want[string(a.Status)]++
	}
	for _, s := range []string{"pending", "in_progress", "resolved"} {
		if lr.counts[s] != want[s] {
			return fmt.Errorf("the hook counts %d %s atoms, Parse %d", lr.counts[s], s, want[s])
		}
	}
	if lr.status != string(st.Control.Status) {
		return fmt.Errorf("the hook reads control.status %q, Parse %q", lr.status, st.Control.Status)
	}
	if lr.iteration != strconv.Itoa(st.Control.Iteration) {
		return fmt.Errorf("the hook reads control.iteration %q, Parse %d", lr.iteration, st.Control.Iteration)
	}
	if len(lr.atoms) != len(st.Atoms) {
		return fmt.Errorf("the scripts see %d atoms, Parse %d", len(lr.atoms), len(st.Atoms))
	}
	for i, a := range st.Atoms {
		la := lr.atoms[i]
		if la.id != a.ID || la.status != string(a.Status) {
			return fmt.Errorf("atom %d: the scripts read id %q status %q, Parse %q %q", i, la.id, la.status, a.ID, a.Status)
		}
		if a.Lines.Has("depends_on") && !la.flowDeps {
			return fmt.Errorf("atom %s: depends_on is not in flow style", a.ID)
		}
		if len(a.DependsOn) > 0 || len(la.deps) > 0 {
			if !slices.Equal(la.deps, a.DependsOn) {
				return fmt.Errorf("atom %s: the scripts read depends_on %v, Parse %v", a.ID, la.deps, a.DependsOn)
			}
		}
	}
	return nil
}

// interopEdits are what corrections do to a template-layout file.
func interopEdits(r *rand.Rand, doc *Document) []model.Edit {
	var edits []model.Edit
	for _, e := range domainEdits(r, doc, 1+r.Intn(6)) {
		// A block depends_on is what the scripts cannot read: corrections
		// write model.Flow there.
		if _, block := e.Value.([]any); block && len(e.Path) == 3 && e.Path[2].Key == "depends_on" {
			continue
		}
		edits = append(edits, e)
	}
	p := &planner{edits: edits}
	switch r.Intn(3) {
	case 0:
		p.add(model.Replace(P("control", "status"), []string{"running", "stopped", "completed"}[r.Intn(3)]))
	case 1:
		p.add(model.Replace(P("control", "iteration"), r.Intn(30)))
	}
	// Descriptions that look like the lines the tools look for.
	for _, s := range []string{"status: pending\n    status: pending", "- id: A99\n- id: A98", "depends_on: [A1]"} {
		if r.Intn(4) == 0 {
			p.add(model.Replace(P("atoms", r.Intn(len(doc.State.Atoms)), "description"), s))
		}
	}
	return p.edits
}

// TestApplyEditsInterop: after corrections on template-layout files, the
// loop's line-based readings agree with Parse.
func TestApplyEditsInterop(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	var inputs [][]byte
	for _, f := range []string{seedComplete, seedChecklist, "../testdata/seed-initial-legacy.md", inCommented} {
		inputs = append(inputs, readInput(t, f))
	}
	for i := 0; i < 40; i++ {
		inputs = append(inputs, genState(r, atomCount(r), templateLayouts[i%len(templateLayouts)]))
	}
	for i, data := range inputs {
		if err := agree(data); err != nil {
			t.Fatalf("input %d disagrees before any edit: %v", i, err)
		}
		doc, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		for round := 0; round < 5; round++ {
			edits := interopEdits(r, doc)
			out, err := ApplyEdits(doc, edits)
			if err != nil {
				t.Fatalf("input %d: %v\nedits: %v", i, err, edits)
			}
			if err := agree(out); err != nil {
				t.Fatalf("input %d: after %v: %v\n%s", i, edits, err, out)
			}
		}
	}
}
