package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/aot-loop/aot-tui/model"
)

// ErrConflict is returned when the file kept changing under a correction and
// it could not be applied safely (exit 3).
var ErrConflict = errors.New("the state file kept changing")

// PlanFunc plans edits against the document as it is now. Update calls it
// again on the new bytes when another writer changed the file.
type PlanFunc func(doc *Document) ([]model.Edit, error)

// UpdateOptions tune Update.
type UpdateOptions struct {
	// MaxSize is the size limit (default DefaultMaxSize).
	MaxSize int64
	// Attempts bounds re-planning when the file changes under us (default 5).
	Attempts int
	// DryRun plans and applies in memory but writes nothing.
	DryRun bool
	// Expect, when set, are the bytes the caller planned on (a form opened
	// on them): if the file differs, Update refuses with ErrStale instead of
	// re-planning silently.
	Expect []byte
}

// ErrStale is returned when UpdateOptions.Expect no longer matches the file.
var ErrStale = errors.New("the state file changed since it was read")

// RuleStaysValid is the rule of the refusal Update returns when a planned
// correction would add a validation error to the file.
const RuleStaysValid = "a correction leaves the file valid"

// UpdateResult tells what Update did.
type UpdateResult struct {
	Path          string
	Before, After []byte
	// Doc is the document the final plan was made on; NewDoc the result.
	Doc, NewDoc *Document
	Edits       []model.Edit
	// Attempts is how many times the file was read and planned on.
	Attempts int
	Wrote    bool
}

// Update applies a planned change to the state file at path without losing
// anything: read the bytes, plan, apply the edits to the text, re-parse and
// re-validate the result (no new errors), write a temp file in the same
// directory with the same mode and fsync it, re-read the target and start
// over if it changed meanwhile (bounded; then ErrConflict), rename the temp
// file over the target and fsync the directory. The file is never truncated
// in place and no temp file is left behind. Bytes caught in the middle of
// an in-place rewrite (empty, cut short, torn) are read again: a parse error
// or refusal is returned only when the file holds the same bytes after a
// short pause. The one race left is with a writer that does not lock,
// between the last re-read and the rename: a few microseconds.
func Update(path string, opts UpdateOptions, plan PlanFunc) (*UpdateResult, error) {
	if opts.Attempts <= 0 {
		opts.Attempts = 5
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	res := &UpdateResult{Path: path}
	for attempt := 1; attempt <= opts.Attempts; attempt++ {
		res.Attempts = attempt
		data, err := readSettled(real, opts.MaxSize)
		if err != nil {
			return res, err
		}
		if opts.Expect != nil && !bytes.Equal(data, opts.Expect) {
			return res, ErrStale
		}
		out, doc, newDoc, edits, err := prepare(data, path, plan)
		if err != nil {
			// The loop's scripts truncate and rewrite the file in place: a
			// read during their write sees it empty, cut short or torn
			// (lines twice). A parse error or refusal on bytes the file no
			// longer holds is stale: start over on what they wrote. Bytes
			// that do not read as a state file may be a write that is
			// late to finish: look again while attempts remain.
			unreadable := doc == nil || len(doc.State.Problems) > 0
			if changed := unsettled(real, data, opts.MaxSize, attempt); changed || unreadable && attempt < opts.Attempts {
				continue
			}
			return res, err
		}
		res.Before, res.After, res.Doc, res.NewDoc, res.Edits = data, out, doc, newDoc, edits
		if opts.DryRun {
			return res, nil
		}
		done, err := replace(real, data, out, opts.MaxSize)
		if err != nil {
			return res, err
		}
		if done {
			res.Wrote = true
			return res, nil
		}
		// Someone wrote the file between our read and our rename: plan again
		// on what they wrote, after a short, growing pause.
		time.Sleep(time.Duration(attempt) * 3 * time.Millisecond)
	}
	return res, fmt.Errorf("%w: %s changed %d times while the correction was being written; try again when the loop is between writes", ErrConflict, path, opts.Attempts)
}

// unsettled reports whether data was read in the middle of a write: after
// a short, growing pause the file holds other bytes.
func unsettled(path string, data []byte, limit int64, attempt int) bool {
	time.Sleep(time.Duration(attempt) * 3 * time.Millisecond)
	again, err := ReadFile(path, limit)
	return err == nil && !bytes.Equal(again, data)
}

// prepare plans and applies the edits to data and checks the result.
func prepare(data []byte, path string, plan PlanFunc) (out []byte, doc, newDoc *Document, edits []model.Edit, err error) {
	doc, err = Parse(data)
	if err != nil {
		return nil, nil, nil, nil, withPath(err, path)
	}
	edits, err = plan(doc)
	if err != nil {
		return nil, doc, nil, nil, err
	}
	out, err = ApplyEdits(doc, edits)
	if err != nil {
		return nil, doc, nil, edits, fmt.Errorf("applying the correction to %s: %w", path, err)
	}
	newDoc, err = Parse(out)
	if err != nil {
		return nil, doc, nil, edits, fmt.Errorf("internal error: the corrected %s would not parse (%v); nothing was written", path, err)
	}
	if msg := newErrors(doc.State, newDoc.State); msg != "" {
		// A refusal like the planner's own (exit 1): the correction would
		// break an invariant the planner did not check.
		return nil, doc, newDoc, edits, &model.Refusal{Rule: RuleStaysValid,
			Reason: fmt.Sprintf("the correction would make %s invalid: %s; nothing was written", path, msg)}
	}
	return out, doc, newDoc, edits, nil
}

// newErrors returns the first validation error the new state has that the
// old one did not. Errors are compared without the line numbers and list
// positions they mention ("first defined on line 95", "atoms[3]"), which
// move when a correction adds or removes lines or items above them.
func newErrors(before, after *model.State) string {
	old := map[string]int{}
	for _, p := range model.Validate(before).Problems {
		if p.Severity == "error" {
			old[errorKey(p.Message)]++
		}
	}
	for _, p := range model.Validate(after).Problems {
		if p.Severity != "error" {
			continue
		}
		k := errorKey(p.Message)
		if old[k] == 0 {
			return model.Problem{Line: p.Line, Message: p.Message}.String()
		}
		old[k]--
	}
	return ""
}

var movingNumbers = regexp.MustCompile(`line \d+|\[\d+\]`)

func errorKey(msg string) string { return movingNumbers.ReplaceAllString(msg, "#") }

// replace writes out to a temp file next to path, checks that path still
// holds expect, and renames the temp file over it. It reports false (and
// removes the temp file) when path changed.
func replace(path string, expect, out []byte, limit int64) (bool, error) {
	dir := filepath.Dir(path)
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".aot-tui-*")
	if err != nil {
		return false, fmt.Errorf("cannot write next to %s: %w", path, err)
	}
	name := tmp.Name()
	keep := false
	defer func() {
		if !keep {
			os.Remove(name)
		}
	}()
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return false, err
	}
	if _, err := tmp.Write(out); err != nil {
		tmp.Close()
		return false, fmt.Errorf("writing %s: %w", name, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Close(); err != nil {
		return false, err
	}
	cur, err := ReadFile(path, limit)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	if !bytes.Equal(cur, expect) {
		return false, nil
	}
	if err := os.Rename(name, path); err != nil {
		return false, fmt.Errorf("replacing %s: %w", path, err)
	}
	keep = true
	syncDir(dir)
	return true, nil
}

// syncDir makes the rename durable.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// Restore writes data over path only if path still holds expect (undo of
// the last correction). It uses the same temp file + re-read + rename steps
// as Update; ErrStale means the file moved on and nothing was written.
func Restore(path string, expect, data []byte, limit int64) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	if _, err := Parse(data); err != nil {
		return fmt.Errorf("internal error: the bytes to restore do not parse (%v); nothing was written", err)
	}
	cur, err := ReadFile(real, limit)
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, expect) {
		return ErrStale
	}
	done, err := replace(real, expect, data, limit)
	if err != nil {
		return err
	}
	if !done {
		return ErrStale
	}
	return nil
}

// readSettled reads the file; when the bytes do not parse (a writer that
// truncates and rewrites in place can be caught half way) it reads again a
// few times, shortly after, until they parse or stop changing.
func readSettled(path string, limit int64) ([]byte, error) {
	data, err := ReadFile(path, limit)
	for i := 0; err == nil && i < 4; i++ {
		if _, perr := Parse(data); perr == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
		again, rerr := ReadFile(path, limit)
		if rerr != nil || bytes.Equal(again, data) {
			break
		}
		data = again
	}
	return data, err
}
