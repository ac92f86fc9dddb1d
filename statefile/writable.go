package statefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotWritable is wrapped by the errors that say why a state file must
// not be rewritten as it is (NotWritableError).
var ErrNotWritable = errors.New("the state file cannot be rewritten as it is")

// NotWritableError is the refusal to write a state file as it is: it is
// read-only, or the rewritten file could not keep its owner. Nothing was
// written; the CLI exits 2 (an I/O error).
type NotWritableError struct {
	Path string
	// Why completes "<Path> …": "is read-only (mode 0444)".
	Why string
	// Fix says what to do about it.
	Fix string
}

func (e *NotWritableError) Error() string {
	return fmt.Sprintf("%s %s: nothing was written; %s", e.Path, e.Why, e.Fix)
}

func (e *NotWritableError) Unwrap() error { return ErrNotWritable }

// writableRefusal is Writable's share of refusalFor: why the file at path,
// when it exists, must not be rewritten as it is (nil when it may, or is
// not there).
func writableRefusal(path string) error {
	if fi, err := os.Stat(path); err == nil {
		if r := refusalFor(path, fi); r != nil {
			return r.brief()
		}
	}
	return nil
}

// brief is the refusal without "nothing was written", for Writable.
func (e *NotWritableError) brief() error {
	return fmt.Errorf("%s %s; %s", e.Path, e.Why, e.Fix)
}

// writeRefusal says why the state file at path (real, once its links are
// followed) must not be rewritten as it is, or returns nil (when it cannot
// be looked at, the write reports why).
func writeRefusal(path, real string) *NotWritableError {
	fi, err := os.Stat(real)
	if err != nil {
		return nil
	}
	return refusalFor(path, fi)
}

// refusalFor says why the file fi (at path) must not be rewritten as it
// is: it is read-only — no write bit for anyone, which a person sets on
// purpose, so root is refused too — or its owner or group could not be
// kept (ownerRefusal, on systems with owners).
func refusalFor(path string, fi fs.FileInfo) *NotWritableError {
	if perm := fi.Mode().Perm(); fi.Mode().IsRegular() && perm&0o222 == 0 {
		return &NotWritableError{Path: path, Why: fmt.Sprintf("is read-only (mode %#o)", uint32(perm)),
			Fix: "chmod u+w " + path + " to allow corrections"}
	}
	return ownerRefusal(path, fi)
}
