package looptools_test

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"github.com/aot-loop/aot-tui/internal/looptools"
	"github.com/aot-loop/aot-tui/statefile"
)

// fileEntries are entries given by hand: the atoms of a test file.
type fileEntries struct {
	spans [][2]int
	prev  []looptools.EntryRead
}

func (e *fileEntries) Len() int { return len(e.spans) }

func (e *fileEntries) Entry(i int) (int, int, int, *looptools.EntryRead) {
	if e.prev == nil {
		return e.spans[i][0], e.spans[i][1], 0, nil
	}
	return e.spans[i][0], e.spans[i][1], 0, &e.prev[i]
}

// atomSpans are the atoms of a template-layout file: each from its
// "  - id:" line to the next one (the last to the next top-level key).
func atomSpans(data []byte) [][2]int {
	var spans [][2]int
	for i := 0; ; {
		k := bytes.Index(data[i:], []byte("\n  - id:"))
		if k < 0 {
			break
		}
		start := i + k + 1
		if n := len(spans); n > 0 {
			spans[n-1][1] = start
		}
		spans = append(spans, [2]int{start, 0})
		i = start
	}
	spans[len(spans)-1][1] = bytes.Index(data, []byte("\ndecompositions:")) + 1
	return spans
}

// TestEntriesTakenFromTheVersionBefore: a reading given the readings of
// the entries of the version before takes those found read as aot-tui
// reads them without reading their lines again, reads the others again,
// and gives what reading every line gives.
func TestEntriesTakenFromTheVersionBefore(t *testing.T) {
	// Three atoms each; the one the scripts misread, or the hook's grep
	// counts otherwise, is read again.
	for name, want := range map[string]int{"01-clean": 3, "31-atom-status-comment": 2, "32-depends-comment": 2, "30-atom-status-prefix": 2} {
		data, err := os.ReadFile(scenarios + "/" + name + ".md")
		if err != nil {
			t.Fatal(err)
		}
		doc, err := statefile.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		fm := looptools.Frame{YAMLStart: doc.FM.YAMLStart, YAMLEnd: doc.FM.YAMLEnd, BodyStart: doc.FM.BodyStart, FirstLine: doc.FM.FirstLine}
		e := &fileEntries{spans: atomSpans(data)}
		first, records, skipped := looptools.ReadEntriesCounted(data, fm, doc.State, e)
		if skipped != 0 {
			t.Fatalf("%s: %d entries taken with nothing to take them from", name, skipped)
		}
		e.prev = records
		again, _, skipped := looptools.ReadEntriesCounted(data, fm, doc.State, e)
		if full := looptools.Read(data, fm, doc.State); !reflect.DeepEqual(again, full) || !reflect.DeepEqual(first, full) {
			t.Fatalf("%s: reading with entries differs:\n%+v\n%+v", name, again, full)
		}
		reusable := 0
		for _, r := range records {
			if r.Reusable() {
				reusable++
			}
		}
		if skipped != want || reusable != want {
			t.Fatalf("%s: %d entries taken, %d reusable, want %d", name, skipped, reusable, want)
		}
	}
}
