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
	// Prepared is a dry run's result to write as it is: when the file still
	// holds Prepared.Before, its After is written without planning again;
	// otherwise Update returns ErrStale. (The preview a person approved is
	// exactly what is written.)
	Prepared *UpdateResult
	// Carried reports whether a document already carries the change (say,
	// its corrections[] entry). When a loop write lands in the instant
	// before our rename, Update re-applies the change on it — or, when the
	// write already carries the change, puts it back as it is. nil: no
	// document carries it.
	Carried func(doc *Document) bool
	// KeepDisplaced keeps the file the write replaced open in
	// UpdateResult.Displaced, for the caller to watch for late in-place
	// writes (see Displaced) and close. Otherwise Update closes it.
	KeepDisplaced bool
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
	// Merged counts loop writes that landed between our last read and our
	// rename and were kept: the change was re-applied on them.
	Merged int
	// Displaced is the file the write replaced, open (with
	// UpdateOptions.KeepDisplaced): the caller watches it and closes it.
	Displaced *Displaced
}

// Update applies a planned change to the state file at path without losing
// anything — neither the change nor what the loop writes meanwhile:
//
//  1. Read the file (a file caught in the middle of an in-place rewrite —
//     empty, cut short — is read again, with growing pauses) and plan on
//     it; apply the edits to the text; re-parse and re-validate the result
//     (no new errors).
//  2. Write it to a temp file in the same directory with the same mode;
//     fsync.
//  3. Re-read the target: if it changed, start over on the new bytes
//     (bounded; then ErrConflict).
//  4. Exchange the temp file and the target in one step (Linux renameat2
//     RENAME_EXCHANGE; a plain rename elsewhere) and fsync the directory.
//     The exchange hands back the file it replaced. If a loop write landed
//     there between step 3 and 4 — the one window a writer that does not
//     lock can hit — that write is not lost: the change is re-applied on
//     it (or, if it already carries the change, it is put back as it was)
//     and written again the same way; further writes met on the way are
//     merged line by line.
//
// The file is never truncated in place and no temp file is left behind.
// A write that reads the file before our rename and writes after it (a
// script's read-modify-write) can still undo the change; callers guard
// against that after the write (see the correction package).
func Update(path string, opts UpdateOptions, plan PlanFunc) (*UpdateResult, error) {
	if opts.Attempts <= 0 {
		opts.Attempts = 5
	}
	if opts.Prepared != nil {
		opts.Expect = opts.Prepared.Before
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	res := &UpdateResult{Path: path}
	moving := 0 // reads that caught the file changing
	for attempt := 1; attempt <= opts.Attempts; attempt++ {
		res.Attempts = attempt
		data, moved, err := readSettled(real, opts.MaxSize)
		if err != nil {
			return res, err
		}
		if moved {
			moving++
		}
		if opts.Expect != nil && !bytes.Equal(data, opts.Expect) {
			return res, ErrStale
		}
		var p prepared
		if opts.Prepared != nil {
			r := opts.Prepared
			p = prepared{data: data, out: r.After, doc: r.Doc, newDoc: r.NewDoc, edits: r.Edits}
		} else if p, err = prepare(data, path, plan, opts.Carried); errors.Is(err, errCarried) {
			// The file already carries the change (a copy of it came back
			// with a loop write): there is nothing to write.
			res.set(prepared{data: data, out: data, doc: p.doc, newDoc: p.doc})
			return res, nil
		} else if err != nil {
			// The loop's scripts truncate and rewrite the file in place: a
			// read during their write sees it empty, cut short or torn
			// (lines twice). A parse error or refusal on bytes the file no
			// longer holds is stale: start over on what they wrote. Bytes
			// that do not read as a state file may be a write that is
			// late to finish: look again while attempts remain.
			unreadable := p.doc == nil || len(p.doc.State.Problems) > 0
			if unsettled(real, data, opts.MaxSize, attempt) {
				moving++
				continue
			}
			if unreadable && attempt < opts.Attempts {
				continue
			}
			if unreadable && moving > 0 {
				// It never held still long enough to read: that is a file
				// being rewritten, not an invalid one.
				return res, fmt.Errorf("%w: %s was being rewritten every time it was read (%d reads); try again when the loop is between writes", ErrConflict, path, attempt)
			}
			return res, err
		}
		res.set(p)
		if opts.DryRun {
			return res, nil
		}
		ir, err := install(real, data, p.out, opts.MaxSize)
		if err != nil {
			return res, err
		}
		if !ir.swapped {
			// Someone wrote the file between our read and our rename: plan
			// again on what they wrote, after a short, growing pause.
			moving++
			time.Sleep(time.Duration(attempt) * 3 * time.Millisecond)
			continue
		}
		res.Wrote = true
		err = reconcile(real, res, ir.displaced, p, plan, opts)
		if res.Displaced != nil && !opts.KeepDisplaced {
			res.Displaced.Close()
			res.Displaced = nil
		}
		return res, err
	}
	return res, fmt.Errorf("%w: %s changed %d times while the correction was being written; try again when the loop is between writes", ErrConflict, path, opts.Attempts)
}

func (r *UpdateResult) set(p prepared) {
	r.Before, r.After, r.Doc, r.NewDoc, r.Edits = p.data, p.out, p.doc, p.newDoc, p.edits
}

// reconcile follows up the exchange that wrote p.out: d is the file it
// replaced. When that is not the file p was planned on, a loop write
// landed in between; it is kept (see Update).
func reconcile(path string, res *UpdateResult, d *Displaced, p prepared, plan PlanFunc, opts UpdateOptions) error {
	if d == nil {
		return nil // renamed without an exchange: nothing to compare with
	}
	if d.Foreign() {
		d.Settle() // a write in progress is given a moment to finish
	}
	if !d.Foreign() {
		res.Displaced = d
		return nil
	}
	foreign := d.Bytes()
	fdoc, err := Parse(foreign)
	if err != nil {
		// Still half written: the caller's watch of the displaced file
		// merges it once it is whole (see Merge).
		res.Displaced = d
		return nil
	}
	d.Close()
	// The file at path is p.out, planned without the loop's write: write
	// the change again on top of the loop's write.
	want, refusal := foreign, error(nil)
	var again prepared
	switch {
	case opts.Carried != nil && opts.Carried(fdoc):
		again = prepared{data: foreign, out: foreign, doc: fdoc, newDoc: fdoc}
	case opts.Prepared != nil:
		// The person approved exactly this change: it goes on top of the
		// loop's write line by line, or not at all (ErrStale: the caller
		// plans it again and shows it again).
		merged, ok := mergeLines(p.data, p.out, foreign)
		var ndoc *Document
		if ok {
			ndoc, err = Parse(merged)
		}
		if !ok || err != nil {
			refusal = ErrStale
			break
		}
		want = merged
		again = prepared{data: foreign, out: merged, doc: fdoc, newDoc: ndoc, edits: p.edits}
	default:
		q, err := prepare(foreign, res.Path, plan, nil)
		if err != nil {
			refusal = err // the change no longer applies: put the loop's write back
			break
		}
		want, again = q.out, q
	}
	final, err := converge(path, p.out, want, opts.MaxSize)
	if err != nil {
		return err
	}
	res.Merged++
	if refusal != nil {
		res.Wrote = false
		res.set(prepared{data: foreign, out: final, doc: fdoc, newDoc: parseOr(final, fdoc)})
		return refusal
	}
	if !bytes.Equal(final, want) {
		again.out, again.newDoc = final, parseOr(final, again.newDoc)
	}
	res.set(again)
	return nil
}

func parseOr(data []byte, fallback *Document) *Document {
	if doc, err := Parse(data); err == nil {
		return doc
	}
	return fallback
}

// converge replaces installed (what we last put at path) with want, and
// keeps every write met on the way: a write on top of ours, or one landing
// in the instant before the exchange, is merged line by line into what we
// write next (base: what we had installed). It returns what is at path in
// the end. When a write cannot be merged, the bytes that would be lost are
// kept in a file beside path, named in the error.
func converge(path string, installed, want []byte, limit int64) ([]byte, error) {
	for round := 0; round < 5; round++ {
		ir, err := install(path, installed, want, limit)
		if err != nil {
			return installed, err
		}
		var other []byte
		switch {
		case ir.swapped && ir.displaced == nil:
			return want, nil
		case ir.swapped:
			ir.displaced.Settle()
			other = ir.displaced.Bytes()
			ir.displaced.Close()
			if bytes.Equal(other, installed) {
				return want, nil
			}
			// want is at path now; other was there an instant before.
			merged, ok := mergeLines(installed, want, other)
			if !ok {
				return want, keptError(path, other)
			}
			installed, want = want, merged
		case ir.found == nil:
			return installed, fmt.Errorf("%s disappeared while the correction was being written", path)
		default:
			// Someone wrote on top of what we had installed.
			other = ir.found
			merged, ok := mergeLines(installed, want, other)
			if !ok {
				return other, keptError(path, want)
			}
			installed, want = other, merged
		}
	}
	return installed, fmt.Errorf("%w: %s kept changing while the loop's write was being merged", ErrConflict, path)
}

// keptError keeps data beside path and says where.
func keptError(path string, data []byte) error {
	name, err := keep(path, data)
	if err != nil {
		return fmt.Errorf("%w: two writes to %s could not be merged, and %v", ErrConflict, path, err)
	}
	return fmt.Errorf("%w: two writes to %s touched the same lines at the same moment; the one not in the file is kept in %s", ErrConflict, path, name)
}

// prepared is a plan applied to the bytes it was made on.
type prepared struct {
	data, out   []byte
	doc, newDoc *Document
	edits       []model.Edit
}

// unsettled reports whether data was read in the middle of a write: after
// a short, growing pause the file holds other bytes.
func unsettled(path string, data []byte, limit int64, attempt int) bool {
	time.Sleep(time.Duration(attempt) * 3 * time.Millisecond)
	again, err := ReadFile(path, limit)
	return err == nil && !bytes.Equal(again, data)
}

// errCarried is prepare's answer when the document already carries the
// change.
var errCarried = errors.New("the file already carries the change")

// prepare plans and applies the edits to data and checks the result.
func prepare(data []byte, path string, plan PlanFunc, carried func(*Document) bool) (prepared, error) {
	p := prepared{data: data}
	doc, err := Parse(data)
	if err != nil {
		return p, withPath(err, path)
	}
	p.doc = doc
	if carried != nil && carried(doc) {
		return p, errCarried
	}
	edits, err := plan(doc)
	if err != nil {
		return p, err
	}
	p.edits = edits
	out, err := ApplyEdits(doc, edits)
	if err != nil {
		return p, fmt.Errorf("applying the correction to %s: %w", path, err)
	}
	newDoc, err := Parse(out)
	if err != nil {
		return p, fmt.Errorf("internal error: the corrected %s would not parse (%v); nothing was written", path, err)
	}
	if msg := newErrors(doc.State, newDoc.State); msg != "" {
		// A refusal like the planner's own (exit 1): the correction would
		// break an invariant the planner did not check.
		return p, &model.Refusal{Rule: RuleStaysValid,
			Reason: fmt.Sprintf("the correction would make %s invalid: %s; nothing was written", path, msg)}
	}
	p.out, p.newDoc = out, newDoc
	return p, nil
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

// testHook, when set (by tests), is called at the named steps of install:
// "written" (the temp file is complete) and "checked" (the target was
// re-read and still holds what the plan was made on; the exchange is
// next). Tests use it to land another writer's write in each window.
var testHook func(step string)

func hook(step string) {
	if testHook != nil {
		testHook(step)
	}
}

// installResult is what install did.
type installResult struct {
	// swapped is true when want is at path; displaced is then the file it
	// replaced, open (nil where the system could only rename and the file
	// could not be held).
	swapped   bool
	displaced *Displaced
	// found is what path held instead of expect (not swapped; nil when
	// the file was gone).
	found []byte
}

// install writes want to a temp file next to path and, if path still holds
// expect, puts it in path's place: by an exchange that hands back the file
// it replaced, or by a rename where the system cannot exchange (holding
// the replaced file open from just before). The temp file never remains.
func install(path string, expect, want []byte, limit int64) (installResult, error) {
	dir := filepath.Dir(path)
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".aot-tui-*")
	if err != nil {
		return installResult{}, fmt.Errorf("cannot write next to %s: %w", path, err)
	}
	name := tmp.Name()
	// After an exchange the name holds the replaced file, which we hold
	// open: it goes too.
	defer os.Remove(name)
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return installResult{}, err
	}
	if _, err := tmp.Write(want); err != nil {
		tmp.Close()
		return installResult{}, fmt.Errorf("writing %s: %w", name, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return installResult{}, err
	}
	if err := tmp.Close(); err != nil {
		return installResult{}, err
	}
	hook("written")
	cur, err := ReadFile(path, limit)
	if errors.Is(err, os.ErrNotExist) {
		return installResult{}, nil
	}
	if err != nil {
		return installResult{}, err
	}
	if !bytes.Equal(cur, expect) {
		return installResult{found: cur}, nil
	}
	hook("checked")
	old, _ := os.Open(path) // what a rename would replace
	swapped, err := swap(name, path)
	if errors.Is(err, os.ErrNotExist) {
		closeFile(old)
		return installResult{}, nil
	}
	if err != nil {
		closeFile(old)
		return installResult{}, fmt.Errorf("replacing %s: %w", path, err)
	}
	var replaced *os.File
	if swapped {
		closeFile(old)
		replaced, _ = os.Open(name)
	} else {
		if err := os.Rename(name, path); err != nil {
			closeFile(old)
			return installResult{}, fmt.Errorf("replacing %s: %w", path, err)
		}
		replaced = old
	}
	syncDir(dir)
	res := installResult{swapped: true}
	if replaced != nil {
		if d, err := newDisplaced(replaced, expect, limit); err == nil {
			res.displaced = d
		} else {
			replaced.Close()
		}
	}
	return res, nil
}

func closeFile(f *os.File) {
	if f != nil {
		f.Close()
	}
}

// syncDir makes the rename durable.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// Restore writes data over path only if path still holds expect (undo of
// the last correction). It uses the same temp file + re-read + exchange
// steps as Update; ErrStale means the file moved on and nothing was
// written. A loop write landing in the instant before the exchange is
// merged into data line by line (or kept beside the file, see Update).
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
	ir, err := install(real, expect, data, limit)
	if err != nil {
		return err
	}
	if !ir.swapped {
		return ErrStale
	}
	if d := ir.displaced; d != nil {
		defer d.Close()
		if d.Settle(); d.Foreign() {
			merged, ok := mergeLines(expect, data, d.Bytes())
			if !ok {
				return keptError(path, d.Bytes())
			}
			_, err := converge(real, data, merged, limit)
			return err
		}
	}
	return nil
}

// Merge keeps a loop write that went into a file our write had replaced
// (see Displaced): the change it made to base — what that file held when
// replaced — is merged line by line into what path holds now, and written
// the same way as Update writes. It returns what path holds in the end.
// When the two cannot be merged, the loop's write is kept beside path and
// the error says where.
func Merge(path string, base, foreign []byte, limit int64) ([]byte, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(base, foreign) {
		return nil, nil
	}
	if _, err := Parse(foreign); err != nil {
		return nil, fmt.Errorf("the loop's late write into %s does not parse (%v); it is left out", path, err)
	}
	for attempt := 0; attempt < 5; attempt++ {
		cur, _, err := readSettled(real, limit)
		if err != nil {
			return nil, err
		}
		merged, ok := mergeLines(base, cur, foreign)
		if !ok {
			return cur, keptError(real, foreign)
		}
		if bytes.Equal(merged, cur) {
			return cur, nil // already there
		}
		if _, err := Parse(merged); err != nil {
			return cur, keptError(real, foreign)
		}
		final, err := converge(real, cur, merged, limit)
		if err == nil || !errors.Is(err, ErrConflict) {
			return final, err
		}
	}
	return nil, fmt.Errorf("%w: %s kept changing while a late loop write was merged", ErrConflict, path)
}

// readSettled reads the file; when the bytes do not parse (a writer that
// truncates and rewrites in place can be caught half way) it reads again,
// with growing pauses (about a third of a second in all), until they parse
// or hold still. moved reports that the bytes changed between reads.
func readSettled(path string, limit int64) (data []byte, moved bool, err error) {
	data, err = ReadFile(path, limit)
	for wait := 5 * time.Millisecond; err == nil && wait <= 160*time.Millisecond; wait *= 2 {
		if _, perr := Parse(data); perr == nil {
			break
		}
		time.Sleep(wait)
		again, rerr := ReadFile(path, limit)
		if rerr != nil {
			break
		}
		if bytes.Equal(again, data) {
			if wait >= 40*time.Millisecond {
				break // held still for a while: it is what the file holds
			}
			continue
		}
		data, moved = again, true
	}
	return data, moved, err
}
