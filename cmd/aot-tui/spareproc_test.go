package main

import (
	"runtime"
	"testing"
)

// spareProc gives the event loop and the watcher processors of their own
// while layouts run: GOMAXPROCS is two more than before from the first layout to the
// last one's end, the layouts keep to the processors there were, and an
// end told twice counts once.
func TestSpareProcWhileLayoutsRun(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var s spareProc
	w1, done1 := s.beside()
	if w1 != 1 || runtime.GOMAXPROCS(0) != 3 {
		t.Fatalf("one layout: %d workers, GOMAXPROCS %d; want 1, 3", w1, runtime.GOMAXPROCS(0))
	}
	w2, done2 := s.beside()
	if w2 != 1 || runtime.GOMAXPROCS(0) != 3 {
		t.Fatalf("two layouts: %d workers, GOMAXPROCS %d; want 1, 3 (the spares shared)", w2, runtime.GOMAXPROCS(0))
	}
	done1()
	done1()
	if runtime.GOMAXPROCS(0) != 3 {
		t.Fatalf("one layout left (its partner's end told twice): GOMAXPROCS %d, want 3", runtime.GOMAXPROCS(0))
	}
	done2()
	if runtime.GOMAXPROCS(0) != 1 {
		t.Fatalf("no layout left: GOMAXPROCS %d, want 1", runtime.GOMAXPROCS(0))
	}
	runtime.GOMAXPROCS(3) // as if set by the person: kept, two more meanwhile
	w, done := s.beside()
	if w != 3 || runtime.GOMAXPROCS(0) != 5 {
		t.Fatalf("on three processors: %d workers, GOMAXPROCS %d; want 3, 5", w, runtime.GOMAXPROCS(0))
	}
	done()
	if runtime.GOMAXPROCS(0) != 3 {
		t.Fatalf("after: GOMAXPROCS %d, want 3", runtime.GOMAXPROCS(0))
	}
}
