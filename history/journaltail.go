package history

import (
	"bytes"
	"errors"
	"io"

	"github.com/aot-loop/aot-tui/statefile"
)

// Reading a journal from its end: what status needs of it (the last few
// versions, for atoms gone while in progress) without reading or decoding
// the whole file.

// tailLines returns the last lines of the journal at path, enough of them
// that a full record at least n lines from the end is among them (or the
// whole file): read from the end, a block at a time, so that status reads
// a few hundred kilobytes of a journal that may hold 32 MiB. A torn last
// line — however long: a full record of a large loop is longer than the
// first block — is left out. Nil when there is no journal.
func tailLines(path string, n int) [][]byte {
	f, err := statefile.OpenRegular(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return nil
	}
	size := fi.Size()
	for block := int64(256 << 10); ; block *= 4 {
		from := max(size-block, 0)
		data := make([]byte, size-from)
		if _, err := f.ReadAt(data, from); err != nil && !errors.Is(err, io.EOF) {
			return nil
		}
		// Whole lines only: up to the last newline (after it, a torn
		// line or nothing), and from the block's first newline on when
		// the block began inside a line.
		var lines [][]byte
		if end := bytes.LastIndexByte(data, '\n'); end >= 0 {
			lines = bytes.Split(data[:end], []byte("\n"))
			if from > 0 {
				lines = lines[1:]
			}
		}
		if from == 0 {
			return lines
		}
		for i := len(lines) - n; i >= 0; i-- {
			if isFull(lines[i]) {
				return lines
			}
		}
	}
}

// isFull reports whether a journal line is a full record (the version
// whole, not a diff).
func isFull(line []byte) bool { return bytes.Contains(line, []byte(`"full":"`)) }

// recordSize is the size of the version a journal line records (its "n"),
// read without decoding the line; 0 when it cannot be read.
func recordSize(line []byte) int {
	i := bytes.Index(line, []byte(`"n":`))
	if i < 0 {
		return 0
	}
	n := 0
	for _, c := range line[i+len(`"n":`):] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// tailBudget bounds the bytes tailVersions rebuilds on its way from a full
// record to the versions it returns: the work is the number of records
// times the file's size, and status must stay quick on large loops.
const tailBudget = 32 << 20

// tailVersions returns the last n distinct versions a journal holds (its
// current file only), oldest first, decoding from the last full record
// that is at least n records from the end (or the first one): a diff
// record needs the version before it. Only the versions returned are
// checked against their hash (a damaged base makes the versions built on
// it fail theirs); records that do not decode are skipped, as ReadJournal
// skips them. Nil when there is no journal, or when rebuilding the
// versions would take more than tailBudget bytes.
func tailVersions(path string, n int) [][]byte {
	lines := tailLines(path, n)
	start := 0
	for i := len(lines) - n; i >= 0; i-- {
		if isFull(lines[i]) {
			start = i
			break
		}
	}
	// What rebuilding costs is known before any record is decoded: each
	// record names its version's size.
	estimate := 0
	for _, line := range lines[start:] {
		estimate += recordSize(line)
	}
	if estimate > tailBudget {
		return nil
	}
	type kept struct {
		data []byte
		sum  string
	}
	var out []kept
	var head text
	headSum := ""
	spent := 0
	for _, line := range lines[start:] {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		rec, v, ok := decodeUnchecked(line, &head, headSum)
		if !ok {
			head, headSum = text{}, ""
			continue
		}
		if spent += len(v); spent > tailBudget {
			return nil
		}
		head, headSum = split(v), rec.Sum
		if len(out) > 0 && bytes.Equal(out[len(out)-1].data, v) {
			continue
		}
		out = append(out, kept{v, rec.Sum})
		if len(out) > n {
			out = out[1:]
		}
	}
	var versions [][]byte
	for _, k := range out {
		if statefile.Sum(k.data) == k.sum {
			versions = append(versions, k.data)
		}
	}
	return versions
}
