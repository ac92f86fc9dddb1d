package ui

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/sim/gen"
)

// A correction applied here, then the file replaced by a new loop (a new
// /align-goal, a copied state): the guard does not carry the correction
// over to it, and says so in the footer and the message log — not in the
// red banner of a lost correction.
func TestGuardStandsDownOnANewLoopAndSaysSo(t *testing.T) {
	f := startRedirectFlow(t)
	formScripts[3].run(f) // constraints: max_iterations 30
	f.waitFor("preview:", "enter apply")
	f.keys("enter")
	f.waitFor("recorded in corrections")
	fresh := gen.Generate(gen.Options{Atoms: 12, Seed: 42, Resolved: 0.2})
	if err := os.WriteFile(f.path, fresh, 0o644); err != nil { // cp over it
		t.Fatal(err)
	}
	const said = `the file was replaced by a new loop: the correction "max_iterations 20 → 30" was not carried over`
	// A warning: its glyph first, the end cut off in a 100-column footer.
	f.waitFor("⚠ " + strings.TrimSuffix(said, " over"))
	if got := f.file(); !bytes.Equal(got, fresh) {
		t.Fatalf("the guard wrote into the new loop:\n%s", got)
	}
	if s := f.screen(); strings.Contains(s, "lost:") || strings.Contains(s, "esc dismisses") {
		t.Fatalf("a stand-down shown as a lost correction:\n%s", s)
	}
	// The new loop's own writes are not corrected either.
	more := bytes.Replace(fresh, []byte("  iteration: 0\n"), []byte("  iteration: 2\n"), 1)
	if err := os.WriteFile(f.path, more, 0o644); err != nil {
		t.Fatal(err)
	}
	f.waitFor("iteration 2/")
	time.Sleep(200 * time.Millisecond)
	if got := f.file(); !bytes.Equal(got, more) {
		t.Fatalf("the guard wrote into the new loop later:\n%s", got)
	}
	f.keys("M")
	f.waitFor("message log", "warn   "+said[:60])
}
