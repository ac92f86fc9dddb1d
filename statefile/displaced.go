package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Displaced is a state file that one of our writes replaced, kept open for
// a while. The loop's scripts rewrite the file in place (Python's
// write_text opens it with O_TRUNC, then writes): a script that opened the
// file just before our rename writes into this file, no longer reachable
// by its name, and its change would be lost. Changed tells when that
// happens; the caller merges the change into the file (Merge).
type Displaced struct {
	f     *os.File
	limit int64
	// base is what the file held when it was replaced: the bytes our
	// write was planned on (or the last we knew of).
	base []byte
	// seen is what it held at the last look, and stamp when.
	seen  []byte
	stamp fileStamp
}

// newDisplaced reads the replaced file through f.
func newDisplaced(f *os.File, base []byte, limit int64) (*Displaced, error) {
	d := &Displaced{f: f, limit: limit, base: base}
	data, st, err := d.read()
	if err != nil {
		return nil, err
	}
	d.seen, d.stamp = data, st
	return d, nil
}

// Base is what the file held when our write replaced it.
func (d *Displaced) Base() []byte { return d.base }

// Bytes is what the file held at the last look.
func (d *Displaced) Bytes() []byte { return d.seen }

// Foreign reports whether the file holds another writer's bytes: not
// those our write was planned on.
func (d *Displaced) Foreign() bool { return !bytes.Equal(d.seen, d.base) }

func (d *Displaced) read() ([]byte, fileStamp, error) {
	fi, err := d.f.Stat()
	if err != nil {
		return nil, fileStamp{}, err
	}
	st := fileStamp{exists: true, size: fi.Size(), modTime: fi.ModTime(), ino: inode(fi), ctime: ctime(fi)}
	limit := d.limit
	if limit <= 0 {
		limit = DefaultMaxSize
	}
	if fi.Size() > limit {
		return nil, st, sizeError(fi.Size(), limit)
	}
	buf := make([]byte, fi.Size()+512)
	n, err := d.f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, st, err
	}
	if int64(n) > limit {
		return nil, st, sizeError(int64(n), limit)
	}
	return buf[:n], st, nil
}

// Changed looks at the file again: when it was written since the last
// look it returns the new bytes, once they have settled (a writer caught
// half way is given a moment to finish).
func (d *Displaced) Changed() ([]byte, bool) {
	fi, err := d.f.Stat()
	if err != nil {
		return nil, false
	}
	if st := (fileStamp{exists: true, size: fi.Size(), modTime: fi.ModTime(), ino: inode(fi), ctime: ctime(fi)}); st == d.stamp {
		return nil, false
	}
	data, st, err := d.settle()
	if err != nil {
		return nil, false
	}
	d.stamp = st
	if bytes.Equal(data, d.seen) {
		return nil, false
	}
	d.seen = data
	return data, true
}

// Settle reads the file again once it has held still (a writer caught half
// way is given a moment to finish) and returns what it holds.
func (d *Displaced) Settle() []byte {
	if data, st, err := d.settle(); err == nil {
		d.seen, d.stamp = data, st
	}
	return d.seen
}

// settle reads the file until it reads as a state file and two reads a
// few milliseconds apart agree — or, when it does not read as one, until
// it has held still for a while (a writer half way through is given about
// a third of a second to finish; a slower one is seen at the next look).
func (d *Displaced) settle() ([]byte, fileStamp, error) {
	data, st, err := d.read()
	still := time.Duration(0)
	for wait := 2 * time.Millisecond; err == nil && wait <= 128*time.Millisecond; wait *= 2 {
		time.Sleep(wait)
		again, st2, err2 := d.read()
		if err2 != nil {
			return nil, st, err2
		}
		if st2 != st || !bytes.Equal(again, data) {
			data, st, still = again, st2, 0
			continue
		}
		still += wait
		if _, perr := Parse(data); perr == nil || still >= 40*time.Millisecond {
			return data, st, nil
		}
	}
	return data, st, err
}

// Close lets the file go (the last reference to it, as a rule: the system
// frees it).
func (d *Displaced) Close() error {
	if d == nil || d.f == nil {
		return nil
	}
	err := d.f.Close()
	d.f = nil
	return err
}

// keep writes data to a file beside path that the loop does not read, so
// that a write we could not merge is never lost; it returns the file's
// name. It is the last resort of Update and Merge.
func keep(path string, data []byte) (string, error) {
	name := fmt.Sprintf("%s.aot-tui-kept-%s", path, time.Now().UTC().Format("20060102T150405.000000000Z"))
	if err := os.WriteFile(name, data, 0o600); err != nil {
		return "", fmt.Errorf("keeping the loop's write beside %s: %w", filepath.Base(path), err)
	}
	if fi, err := os.Stat(path); err == nil {
		chownKept(name, fi) // its user can read it, whoever ran aot-tui
	}
	syncDir(filepath.Dir(path))
	return name, nil
}
