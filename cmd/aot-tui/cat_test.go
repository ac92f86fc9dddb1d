package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/statefile"
)

// `cat --follow` on the built binary: each version once, never a torn
// one, and what happens when the file goes, comes back, or grows over
// the limit.

// versionBytes checks a version line (its sha256 and size are its
// data's, and the data parse as a state file) and returns its bytes.
func versionBytes(t *testing.T, l streamLine) []byte {
	t.Helper()
	data, err := base64.StdEncoding.DecodeString(l.str("data"))
	if err != nil {
		t.Fatalf("version data: %v", err)
	}
	sum := sha256.Sum256(data)
	if l.str("sha256") != hex.EncodeToString(sum[:]) || l["size"] != float64(len(data)) {
		t.Fatalf("version sha256 %s size %v, but its data are %x, %d bytes", l.str("sha256"), l["size"], sum, len(data))
	}
	if _, err := statefile.Parse(data); err != nil {
		t.Fatalf("a version that does not parse was sent (%v):\n%s", err, data)
	}
	return data
}

var iterationLine = regexp.MustCompile(`(?m)^  iteration: (\d+)$`)

func iterationOf(t *testing.T, data []byte) int {
	t.Helper()
	m := iterationLine.FindSubmatch(data)
	if m == nil {
		t.Fatalf("no iteration line in\n%s", data)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// withIteration is exitState at iteration n, with a body long enough that
// a write in two halves leaves a torn file for a while.
func withIteration(n int) string {
	s := strings.Replace(exitState, "  iteration: 2\n", fmt.Sprintf("  iteration: %d\n", n), 1)
	return s + strings.Repeat(fmt.Sprintf("The loop's notes for iteration %d.\n", n), 200)
}

// writeInPlace writes data as the plugin's scripts do (Python's
// write_text: open, truncating, and write), in two parts with a pause
// between them, so that a reader can catch the file empty or cut short —
// cut in the frontmatter, where it does not parse. (A file cut in its
// Markdown body parses: no reader can tell it from a file whose prompt
// ends there, and the rest of the write follows as the next version.)
func writeInPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	half := bytes.Index(data, []byte("\natoms:"))
	if _, err := f.Write(data[:half]); err != nil {
		f.Close()
		return err
	}
	time.Sleep(time.Millisecond)
	if _, err := f.Write(data[half:]); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// A loop rewrites the file in place, non-atomically, 150 times: every
// version line carries a file that parses (never a torn one), no version
// is sent twice, they come in the order written, and the last is sent.
// A write that leaves the bytes as they were sends nothing.
func TestCatFollowSendsEachVersionOnceAndNeverATornOne(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	path := writeFile(t, dir, ".claude/aot-loop-state.md", withIteration(0))
	p := startStream(t, bin, "cat", "--follow", path, "--heartbeat", "0")
	first := p.next("the first version", kindIs("version"))
	if iterationOf(t, versionBytes(t, first)) != 0 || !pathIs(first, ".claude/aot-loop-state.md") || first.str("loop") != "aot-loop" {
		t.Fatalf("first version %v", first)
	}

	const writes = 150
	var wg sync.WaitGroup
	wg.Add(1)
	var werr error
	go func() {
		defer wg.Done()
		for i := 1; i <= writes && werr == nil; i++ {
			werr = writeInPlace(path, []byte(withIteration(i)))
			time.Sleep(2 * time.Millisecond)
		}
	}()
	wg.Wait()
	if werr != nil {
		t.Fatal(werr)
	}
	p.next("the last version", func(l streamLine) bool {
		return l.kind() == "version" && iterationOf(t, versionBytes(t, l)) == writes
	})
	// The same bytes written again (the plugin's scripts write even when
	// nothing changes), then a change: the change is the next line.
	if err := writeInPlace(path, []byte(withIteration(writes))); err != nil {
		t.Fatal(err)
	}
	if err := writeInPlace(path, []byte(withIteration(writes+1))); err != nil {
		t.Fatal(err)
	}
	n := len(p.seen)
	next := p.next("the change after the rewrite", kindIs("version"))
	if len(p.seen) != n+1 || iterationOf(t, versionBytes(t, next)) != writes+1 {
		t.Fatalf("after the last version: %v, then iteration %d", p.kinds()[n:], iterationOf(t, versionBytes(t, next)))
	}
	if code := p.closeStdin(); code != 0 {
		t.Fatalf("exit %d: %s", code, p.stderr.String())
	}

	sums := map[string]bool{}
	last, versions := -1, 0
	for _, l := range p.seen {
		switch l.kind() {
		case "version":
			versions++
			data := versionBytes(t, l)
			if sums[l.str("sha256")] {
				t.Errorf("version %s sent twice", l.str("sha256"))
			}
			sums[l.str("sha256")] = true
			if it := iterationOf(t, data); it <= last {
				t.Errorf("iteration %d sent after %d", it, last)
			} else {
				last = it
			}
		case "invalid":
			// A write caught half done again and again: said, never sent.
			if _, ok := l["data"]; ok {
				t.Errorf("an invalid version carries data: %v", l)
			}
		default:
			t.Errorf("a %s line while the file was only rewritten: %v", l.kind(), l)
		}
	}
	t.Logf("%d writes, %d versions sent, lines: %d", writes+3, versions, len(p.seen))
}

// Missing at the start, there, over --max-size (one endless line), back,
// removed and recreated: each makes its line, and the stream goes on.
func TestCatFollowGoneBackAndTooLarge(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "aot-loop-state.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	p := startStream(t, bin, "cat", "--follow", path, "--heartbeat", "0", "--max-size", "8192")
	missing := p.next("an error: not found", kindIs("error"))
	if missing.str("code") != "not_found" || !strings.Contains(missing.str("error"), path) {
		t.Fatalf("missing: %v", missing)
	}

	loopWrite(t, path, exitState)
	sum := fmt.Sprintf("%x", sha256.Sum256([]byte(exitState)))
	if back := p.next("back", kindIs("back")); back.str("sha256") != sum {
		t.Fatalf("back %v", back)
	}
	if v := p.next("the version", kindIs("version")); string(versionBytes(t, v)) != exitState {
		t.Fatal("the version is not the file")
	}

	loopWrite(t, path, strings.Repeat("a", 20000))
	big := p.next("an error: too large", kindIs("error"))
	if big.str("code") != "too_large" || !strings.Contains(big.str("error"), "larger than") || big["data"] != nil {
		t.Fatalf("too large: %v", big)
	}

	// Back to the version sent last: back, and no version line.
	loopWrite(t, path, exitState)
	if back := p.next("back", kindIs("back")); back.str("sha256") != sum {
		t.Fatalf("back %v", back)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	p.next("gone", kindIs("gone"))
	changed := strings.Replace(exitState, "  iteration: 2\n", "  iteration: 3\n", 1)
	loopWrite(t, path, changed)
	p.next("back", kindIs("back"))
	if v := p.next("the new version", kindIs("version")); string(versionBytes(t, v)) != changed {
		t.Fatal("the version is not the file")
	}
	if code := p.closeStdin(); code != 0 {
		t.Fatalf("exit %d: %s", code, p.stderr.String())
	}
	want := []string{"error", "back", "version", "error", "back", "gone", "back", "version"}
	if got := p.kinds(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("lines %v, want %v", got, want)
	}
}

// cat without --follow: the bytes as they are, once; --json one version
// line, whose sha256 is the file's; a file that does not parse is printed
// and exits 1; a missing one exits 2 with an error line under --json.
func TestCatOnce(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, ".claude/aot-loop-state.md", exitState)
	if code, out, errs := cli(t, "cat", dir); code != 0 || out != exitState || errs != "" {
		t.Fatalf("cat: exit %d, stderr %q, stdout is the file: %v", code, errs, out == exitState)
	}
	code, out, _ := cli(t, "cat", "--json", "-f", path)
	var l streamLine
	if err := json.Unmarshal([]byte(out), &l); code != 0 || err != nil || strings.Count(out, "\n") != 1 {
		t.Fatalf("cat --json: exit %d, %q", code, out)
	}
	if l.kind() != "version" || l.str("sha256") != fmt.Sprintf("%x", sha256.Sum256([]byte(exitState))) {
		t.Fatalf("cat --json: %v", l)
	}
	broken := strings.Replace(exitState, "  goal: \"Ship\"", "  goal: [\"Ship\"", 1)
	loopWrite(t, path, broken)
	if code, out, errs := cli(t, "cat", path); code != exitInvalid || out != broken || !strings.Contains(errs, path) {
		t.Fatalf("cat of a file that does not parse: exit %d, stderr %q", code, errs)
	}
	if code, out, _ := cli(t, "cat", "--json", path); code != exitInvalid || !strings.Contains(out, `"kind":"invalid"`) || strings.Contains(out, `"data"`) {
		t.Fatalf("cat --json of a file that does not parse: exit %d, %s", code, out)
	}
	missing := filepath.Join(dir, "none.md")
	if code, out, errs := cli(t, "cat", "--json", missing); code != exitUsage || !strings.Contains(out, `"code":"not_found"`) || !strings.Contains(errs, missing) {
		t.Fatalf("cat of a missing file: exit %d, %s %s", code, out, errs)
	}
}
