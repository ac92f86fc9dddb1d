package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/aot-loop/aot-tui/model"
)

// ErrConflict is returned when the file kept changing under a correction and
// it could not be applied safely (exit 3).
var ErrConflict = errors.New("the state file kept changing")

// PlanFunc plans a change against the document as it is now: its Edits
// are applied, and model.WritePolicy decides on its AnyFile whether they
// may be written (a nil plan changes nothing). Update calls it again on
// the new bytes when another writer changed the file.
type PlanFunc func(doc *Document) (*model.Plan, error)

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
	// its corrections[] entry): Update then writes nothing (a guard that
	// re-applies a correction finds it put back meanwhile). nil: no
	// document carries it.
	Carried func(doc *Document) bool
	// KeepDisplaced keeps the file the write replaced open in
	// UpdateResult.Displaced, for the caller to watch for late in-place
	// writes (see Displaced) and close. Otherwise Update closes it.
	KeepDisplaced bool
	// Installing, when set, is called with the bytes about to replace the
	// file, just before they do: a watcher that reports them an instant
	// later can already tell they are the caller's own write (the TUI's
	// session remembers them). A write that then fails leaves bytes
	// remembered that never appear, which is harmless.
	Installing func(data []byte)
}

// ErrStale is returned when UpdateOptions.Expect no longer matches the file.
var ErrStale = errors.New("the state file changed since it was read")

// RuleStaysValid is the rule of the refusal Update returns when a planned
// correction would add a validation error to the file (model.WritePolicy).
const RuleStaysValid = model.RuleStaysValid

// RuleEditable is the rule of the refusal Update returns when the text a
// correction must change is YAML aot-tui does not rewrite (an alias, a
// tag, an anchor others refer to): the file is left for a person to edit.
const RuleEditable = "a correction changes only YAML it can rewrite exactly"

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
	// exchange and were kept: put back at once, the change planned again
	// on them.
	Merged int
	// Displaced is the file the write replaced, open (with
	// UpdateOptions.KeepDisplaced): the caller watches it and closes it.
	Displaced *Displaced
}

// Update applies a planned change to the state file at path without losing
// anything — neither the change nor what the loop writes meanwhile:
//
//  0. Refuse a file that must not be rewritten as it is (NotWritableError):
//     read-only (no write bit for anyone, even for root), or owned by
//     another user than the one running, where that is not root.
//  1. Read the file (a file caught in the middle of an in-place rewrite —
//     empty, cut short — is read again, with growing pauses) and plan on
//     it; apply the edits to the text; re-parse and re-validate the result
//     (no new errors).
//  2. Write it to a temp file in the same directory with the file's mode,
//     owner and group; fsync.
//  3. Re-read the target: if it changed, start over on the new bytes
//     (bounded; then ErrConflict).
//  4. Exchange the temp file and the target in one step (Linux renameat2
//     RENAME_EXCHANGE, macOS renamex_np RENAME_SWAP) and fsync the
//     directory. The exchange hands back the file it replaced: if a loop
//     write landed there between step 3 and 4 — the one window a writer
//     that does not lock can hit — it is exchanged back at once (our bytes
//     were visible for microseconds) and Update starts over on it. A
//     writer still writing into the file in place gets its file back and
//     finishes there. Where the system cannot exchange, the temp file is
//     renamed over the target, and a loop write found in the file it
//     replaced is written back and planned on likewise; a loop write
//     renamed over the target in the microseconds before our rename is
//     lost there (see install).
//
// The file is never truncated in place and no temp file is left behind.
// A write that reads the file before our rename and writes after it (a
// script's read-modify-write) can still undo the change; callers guard
// against that after the write (see the correction package), and a script
// that opened the file for writing before the exchange and writes after
// it writes into the replaced file, which UpdateOptions.KeepDisplaced
// hands over for watching (see Displaced and Merge).
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
	if r := writeRefusal(path, real); r != nil && !opts.DryRun {
		return res, r
	}
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
			if attempt > 1 && opts.Carried != nil {
				// A loop write that landed as we wrote was put back, and
				// it carries the change: it built on our bytes while they
				// were in place for an instant (it was merged in). The
				// change is written, not stale.
				if doc, err := Parse(data); err == nil && opts.Carried(doc) {
					res.set(prepared{data: data, out: data, doc: doc, newDoc: doc})
					res.Wrote = true
					return res, nil
				}
			}
			return res, ErrStale
		}
		var p prepared
		if opts.Prepared != nil {
			r := opts.Prepared
			p = prepared{data: data, out: r.After, doc: r.Doc, newDoc: r.NewDoc, edits: r.Edits}
		} else if p, err = prepare(data, path, plan, opts.Carried); errors.Is(err, errCarried) {
			// The file already carries the change: there is nothing to
			// write. After a first attempt, that is our own bytes, which a
			// loop write built on while they were in place for an instant.
			res.set(prepared{data: data, out: data, doc: p.doc, newDoc: p.doc})
			res.Wrote = attempt > 1
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
		if opts.Installing != nil {
			opts.Installing(p.out)
		}
		ir, err := install(real, data, p.out, opts.MaxSize)
		if err != nil {
			return res, err
		}
		if ir.kept != "" {
			return res, keptThirdError(path, ir.kept)
		}
		if !ir.swapped {
			// Someone wrote the file between our read and our exchange:
			// plan again on what they wrote, after a short, growing pause.
			moving++
			if ir.swappedBack {
				res.Merged++
			}
			time.Sleep(time.Duration(attempt) * 3 * time.Millisecond)
			continue
		}
		res.Wrote = true
		res.Displaced = ir.displaced
		if res.Displaced != nil && !opts.KeepDisplaced {
			res.Displaced.Close()
			res.Displaced = nil
		}
		return res, nil
	}
	return res, fmt.Errorf("%w: %s changed %d times while the correction was being written; try again when the loop is between writes", ErrConflict, path, opts.Attempts)
}

// Plan is Update's dry run on data, the bytes of the file at path as
// they came from elsewhere (streamed from the machine the file is on):
// plan on them, apply the edits in memory and check the result, with no
// file read. path names the file in messages and the write policy.
func Plan(path string, data []byte, plan PlanFunc) (*UpdateResult, error) {
	res := &UpdateResult{Path: path, Attempts: 1}
	p, err := prepare(data, path, plan, nil)
	if err != nil {
		return res, err
	}
	res.set(p)
	return res, nil
}

func (r *UpdateResult) set(p prepared) {
	r.Before, r.After, r.Doc, r.NewDoc, r.Edits = p.data, p.out, p.doc, p.newDoc, p.edits
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
		if ir.kept != "" {
			return ir.found, keptThirdError(path, ir.kept)
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

// keptThirdError says where install kept a write when three writes met in
// the instant of the exchange (installResult.kept).
func keptThirdError(path, kept string) error {
	return &keptWriteError{fmt.Sprintf("three writes to %s met in a few microseconds; the one not in the file is kept in %s", path, kept)}
}

// keptError keeps data beside path and says where.
func keptError(path string, data []byte) error {
	name, err := keep(path, data)
	if err != nil {
		return fmt.Errorf("%w: two writes to %s could not be merged, and %v", ErrConflict, path, err)
	}
	return &keptWriteError{fmt.Sprintf("two writes to %s touched the same lines at the same moment; the one not in the file is kept in %s", path, name)}
}

// keptWriteError is an ErrConflict after which nothing is lost: the write
// that is not in the file was kept beside it (the message says where).
type keptWriteError struct{ msg string }

func (e *keptWriteError) Error() string { return ErrConflict.Error() + ": " + e.msg }
func (e *keptWriteError) Unwrap() error { return ErrConflict }

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
	// Parsed with its node tree, which the edits are applied on.
	doc, err := parseTree(data)
	if err != nil {
		return p, withPath(err, path)
	}
	p.doc = doc
	if carried != nil && carried(doc) {
		return p, errCarried
	}
	pl, err := plan(doc)
	if err != nil {
		return p, err
	}
	if pl == nil {
		pl = &model.Plan{AnyFile: true} // nothing to write: nothing to refuse
	}
	p.edits = pl.Edits
	out, err := ApplyEdits(doc, pl.Edits)
	var ee *EditError
	if errors.As(err, &ee) && (errors.Is(err, ErrEditUnsupported) || errors.Is(err, ErrEditType)) {
		// The file's own YAML is in the way (corrections: *alias, a
		// tag, a scalar where a list belongs): a refusal (exit 1), the
		// file untouched, not an I/O error.
		return p, &model.Refusal{Rule: RuleEditable,
			Reason: fmt.Sprintf("%s: %v — edit that part of the file by hand; nothing was written", path, err)}
	}
	if err != nil {
		return p, fmt.Errorf("applying the correction to %s: %w", path, err)
	}
	newDoc, err := Parse(out)
	if err != nil {
		return p, fmt.Errorf("internal error: the corrected %s would not parse (%v); nothing was written", path, err)
	}
	// The one write policy, for the CLI and the TUI alike.
	if err := model.WritePolicy(path, doc.State, newDoc.State, pl.AnyFile); err != nil {
		return p, err
	}
	p.out, p.newDoc = out, newDoc
	return p, nil
}

// testHook, when set (by tests), is called at the named steps of install:
// "written" (the temp file is complete), "checked" (the target was
// re-read and still holds what the plan was made on), "held" (the file a
// rename would replace is open; the exchange or rename is next) and
// "swapped" (the exchange or rename replaced a loop write, about to be put
// back). Tests use it to land another writer's write in each window.
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
	// the file was gone). swappedBack says it was found by the exchange
	// and put back.
	found       []byte
	swappedBack bool
	// kept names the file a write was kept in when three writes met in
	// the instant of the exchange (nothing is lost; see install).
	kept string
}

// install writes want to a temp file next to path and, if path still holds
// expect, puts it in path's place by an exchange, which hands back the
// file it replaced. If that is not expect — a loop write landed in the
// microseconds since the check — it is exchanged back at once: our bytes,
// planned without it, never stay in place, and a writer still writing
// into the file in place finishes in the file at path.
//
// Where the system cannot exchange (or it is switched off: ExchangeEnv),
// the temp file is renamed over path, and the file it replaces, opened
// just before, is read afterwards: a loop write found there is put back
// (putBack) as the exchange would have. What no check sees is a loop
// write renamed over path between that open and our rename: it is lost.
// Where a rename is refused because another program holds the file open
// (Windows), the check and the rename are tried again for a while
// (retryPause), then ErrConflict. The temp file never remains.
func install(path string, expect, want []byte, limit int64) (installResult, error) {
	exchange, err := exchangeOn()
	if err != nil {
		return installResult{}, err
	}
	dir := filepath.Dir(path)
	target, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return installResult{}, nil
	}
	if err != nil {
		return installResult{}, err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".aot-tui-*")
	if err != nil {
		return installResult{}, fmt.Errorf("cannot write next to %s: %w", path, err)
	}
	name := tmp.Name()
	// After an exchange the name holds the replaced file, which we hold
	// open: it goes too.
	defer os.Remove(name)
	ours, err := writeTemp(tmp, want, target, path)
	if err != nil {
		return installResult{}, err
	}
	hook("written")
	var (
		old     *os.File // what a rename replaces, held open
		swapped bool
		waited  time.Duration
	)
	for try := 1; ; try++ {
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
		if holdsReplaced {
			// Never a blocking open: a pipe put at the path is not held.
			old, _ = OpenRegular(path)
		}
		hook("held")
		if exchange {
			swapped, err = swap(name, path)
		}
		if !swapped && err == nil {
			err = replaceFile(name, path)
		}
		if err == nil {
			break
		}
		closeFile(old)
		if errors.Is(err, os.ErrNotExist) {
			return installResult{}, nil
		}
		if !transient(err, replaceTransient) {
			return installResult{}, fmt.Errorf("replacing %s: %w", path, err)
		}
		// Another program holds the file open (Windows): wait, then
		// check again — what it wrote meanwhile is planned on, not
		// replaced.
		pause, ok := retryPause(try, waited)
		if !ok {
			return installResult{}, heldOpenError(path, waited, err)
		}
		sleep(pause)
		waited += pause
	}
	replaced := old
	if swapped {
		closeFile(old)
		replaced, _ = OpenRegular(name)
	}
	var d *Displaced
	if replaced != nil {
		if d, err = newDisplaced(replaced, expect, limit); err != nil {
			replaced.Close()
			d = nil
		}
	}
	if d != nil && d.Foreign() {
		hook("swapped")
		if swapped {
			return swapBack(path, name, ours, want, d, expect)
		}
		return putBack(path, want, d)
	}
	syncDir(dir)
	return installResult{swapped: true, displaced: d}, nil
}

// writeTemp fills the temp file with the mode, owner and group of the file
// it is to replace (target, at path), syncs and closes it, and returns its
// inode (to know it again after exchanges).
func writeTemp(tmp *os.File, data []byte, target os.FileInfo, path string) (uint64, error) {
	defer tmp.Close()
	// The owner first: a change of owner clears set-id bits.
	if err := keepOwner(tmp, target, path); err != nil {
		return 0, err
	}
	if err := tmp.Chmod(target.Mode().Perm()); err != nil {
		return 0, err
	}
	if _, err := tmp.Write(data); err != nil {
		return 0, fmt.Errorf("writing %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		return 0, err
	}
	fi, err := tmp.Stat()
	if err != nil {
		return 0, err
	}
	return inode(fi), tmp.Close()
}

// putBack is swapBack where the system could only rename: the loop write
// d, which our rename just replaced, is written back over our bytes
// (converge: a write made on our bytes meanwhile is merged with it), once
// it has settled, and the caller plans again on it. A write that is still
// half done after that (its writer stalled mid-write) cannot be copied:
// our bytes stay, and d goes to the caller, which watches it as it
// watches a late in-place write (Displaced, Merge).
func putBack(path string, ours []byte, d *Displaced) (installResult, error) {
	foreign := d.Settle()
	if _, err := Parse(foreign); err != nil || !d.Foreign() {
		syncDir(filepath.Dir(path))
		return installResult{swapped: true, displaced: d}, nil
	}
	defer d.Close()
	final, err := converge(path, ours, foreign, d.limit)
	var kept *keptWriteError
	if err != nil && !errors.As(err, &kept) {
		// It could not be put back (and not kept on the way): keep it
		// beside the file, so that it is not lost with d.
		if name, kerr := keep(path, foreign); kerr == nil {
			return installResult{}, fmt.Errorf("%w: a loop write that landed as the correction was written could not be put back into %s (%v); it is kept in %s", ErrConflict, path, err, name)
		}
	}
	if err != nil {
		return installResult{}, err
	}
	return installResult{found: final, swappedBack: true}, nil
}

// swapBack puts the loop write d, which our exchange just replaced, back
// at path (name holds it, path our file, want). When yet another write
// was made at path in between — three writes within microseconds; the
// third was most likely made on our bytes while they were in place — the
// third goes back in place with d's change merged into it line by line
// (base: expect, what both d and our plan were made on); only when the
// two cannot be merged is d kept beside the file. The third write is
// either a file renamed over ours or a script's in-place rewrite of our
// file (write_text opens it, truncating it, while it is at path): then
// the exchange back moves our file, with that write, to name, and it goes
// back in place once it has settled, rather than away with name.
func swapBack(path, name string, ours uint64, want []byte, d *Displaced, expect []byte) (installResult, error) {
	defer d.Close()
	foreign := d.Bytes()
	if _, err := swap(name, path); err != nil {
		return installResult{}, fmt.Errorf("putting back the loop's write to %s: %w", path, err)
	}
	syncDir(filepath.Dir(path))
	// A third write at name (renamed over ours, or written into ours) is
	// the newest: it goes back in place.
	var third []byte
	if fi, err := os.Stat(name); err == nil && inode(fi) == ours {
		rewritten, ok := rewrittenInPlace(name, want, d.limit)
		if !ok {
			return installResult{found: foreign, swappedBack: true}, nil
		}
		third = rewritten
	} else if third, err = ReadFile(name, d.limit); err != nil {
		return installResult{}, err
	}
	if _, err := swap(name, path); err != nil {
		return installResult{}, fmt.Errorf("putting back the loop's write to %s: %w", path, err)
	}
	if merged, ok := mergeLines(expect, third, foreign); ok {
		if _, perr := Parse(merged); perr == nil {
			final, err := converge(path, third, merged, d.limit)
			if err == nil {
				return installResult{found: final, swappedBack: true}, nil
			}
		}
	}
	kept, err := keep(path, foreign)
	if err != nil {
		return installResult{}, err
	}
	return installResult{found: third, swappedBack: true, kept: kept}, nil
}

// rewrittenInPlace reports whether our file, now at name, no longer holds
// want — a script rewrote it in place while it was at path — and returns
// what it holds once the write has settled.
func rewrittenInPlace(name string, want []byte, limit int64) ([]byte, bool) {
	f, err := OpenRegular(name)
	if err != nil {
		return nil, false
	}
	d, err := newDisplaced(f, want, limit)
	if err != nil {
		f.Close()
		return nil, false
	}
	defer d.Close()
	if !d.Foreign() {
		return nil, false
	}
	return d.Settle(), true
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

// MergeOptions tune Merge.
type MergeOptions struct {
	// MaxSize is the size limit (default DefaultMaxSize).
	MaxSize int64
	// Installed is what our write put at path. While path still holds it,
	// the change (Plan) is applied again on the loop's write itself — or
	// the loop's write is put in place as it is when it already carries
	// the change (Carried) — rather than merged line by line.
	Installed []byte
	Plan      PlanFunc
	Carried   func(doc *Document) bool
}

// Merge keeps a loop write that went into a file our write had replaced
// (see Displaced): foreign is what the loop wrote there, base what that
// file held when replaced. The loop's change goes into what path holds now
// — by planning the change again on the loop's write while path still
// holds our write (MergeOptions), else line by line — and is written the
// same way as Update writes. It returns what path holds in the end. When
// the two cannot be merged, or the loop's write does not parse, the
// loop's write is kept beside path and the error says where.
func Merge(path string, base, foreign []byte, opts MergeOptions) ([]byte, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(base, foreign) {
		return nil, nil
	}
	fdoc, err := Parse(foreign)
	if err != nil {
		// Nothing can be merged from it, but it is the loop's work: keep it.
		name, kerr := keep(real, foreign)
		if kerr != nil {
			return nil, fmt.Errorf("%w: the loop's late write into %s does not parse (%v), and %v", ErrConflict, path, err, kerr)
		}
		return nil, fmt.Errorf("%w: the loop's late write into %s does not parse (%v); it is kept in %s", ErrConflict, path, err, name)
	}
	for attempt := 0; attempt < 5; attempt++ {
		cur, _, err := readSettled(real, opts.MaxSize)
		if err != nil {
			return nil, err
		}
		var want []byte
		switch {
		case opts.Plan != nil && bytes.Equal(cur, opts.Installed) && opts.Carried != nil && opts.Carried(fdoc):
			want = foreign
		case opts.Plan != nil && bytes.Equal(cur, opts.Installed):
			p, err := prepare(foreign, path, opts.Plan, nil)
			if err != nil {
				// The change no longer applies on the loop's write: the
				// write goes in as it is (the caller's guard reports the
				// correction gone).
				want = foreign
				break
			}
			want = p.out
		default:
			merged, ok := mergeLines(base, cur, foreign)
			if !ok {
				return cur, keptError(real, foreign)
			}
			if _, err := Parse(merged); err != nil {
				return cur, keptError(real, foreign)
			}
			want = merged
		}
		if bytes.Equal(want, cur) {
			return cur, nil // already there
		}
		final, err := converge(real, cur, want, opts.MaxSize)
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
