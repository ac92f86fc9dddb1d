package history

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/aot-loop/aot-tui/internal/filelock"
	"github.com/aot-loop/aot-tui/internal/jsonstream"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/textdiff"
)

// The journal is a file of JSON lines, one record per version:
//
//	{"v":1,"at":"2026-11-24T14:02:31.5Z","sha":"…","n":5120,"full":"<base64 of gzip>","file":"/home/u/shop/.claude/aot-loop-state.md","pid":4242}
//	{"v":1,"at":"2026-11-24T14:02:36Z","sha":"…","n":5131,"base":"<sha of the record before>","ops":[[0,41],"    status: resolved\n",[42,180]],"pid":4242}
//
// A record is either the version in full (gzip, base64) or a line diff
// against the version of the record just before it in the file: [a0,a1]
// copies that version's lines a0..a1-1, a string inserts text. "sha" is
// the SHA-256 of the version's bytes, "base" that of the version the diff
// applies to; "at" the version's time (the file's modification time); a
// full record names the state file it is a version of ("file", absolute:
// a journal in the state directory says whose it is). Every record is checked on read: a line that does not
// decode, a diff whose base is not the version before it, or bytes whose
// hash is not "sha" is skipped with a note (a torn last line — the
// process died mid-write — is the expected case), and the reader picks up
// again at the next full record.
//
// Appends are crash-safe and several processes may append at once (two
// TUIs on the same loop): each append takes an exclusive lock (internal/filelock) on a lock
// file beside the journal, reads what the others appended since its last
// look (to know the version a diff must apply to, and to skip a version
// another process already recorded), writes the record with one write
// under O_APPEND, fsyncs, and unlocks. The lock is what makes this safe:
// O_APPEND alone keeps small writes whole, but not a diff's base (two
// processes could both diff against the same last record) and not writes
// past PIPE_BUF on every file system. A record left torn by a crash gets a
// newline before the next record, so only it is lost.
//
// A journal is capped in size: once an append would take it past MaxSize
// it is renamed to JOURNAL.1 (replacing an older one) and a new journal
// starts with a full record, so at most about twice MaxSize is kept.

// JournalVersion is the format version of the records written.
const JournalVersion = 1

// JournalOptions tune a Journal. The zero value is sensible.
type JournalOptions struct {
	// MaxSize rotates the journal once it would grow past it (default
	// DefaultJournalMax).
	MaxSize int64
	// FullEvery writes a full record at least every this many records
	// (default 100), so a damaged record loses little.
	FullEvery int
	// StateFile is the state file the journal records: its full records
	// name it (made absolute), so that the journal alone says whose it
	// is. Empty: they name none.
	StateFile string
}

// DefaultJournalMax is the default size cap of one journal file.
const DefaultJournalMax = 32 << 20

// record is one line of a journal.
type record struct {
	V    int               `json:"v"`
	At   time.Time         `json:"at"`
	Sum  string            `json:"sha"`
	N    int               `json:"n"`
	Full string            `json:"full,omitempty"`
	Base string            `json:"base,omitempty"`
	Ops  []json.RawMessage `json:"ops,omitempty"`
	File string            `json:"file,omitempty"`
	PID  int               `json:"pid,omitempty"`
}

// Journal appends versions to a journal file (see the format above).
type Journal struct {
	path string
	opts JournalOptions
	lock *os.File
	f    *os.File
	// off is how far this process has read or written the file.
	off int64
	// head is the version of the file's last record, with its lines (no
	// lines when unknown, or empty: the next record is written in full);
	// headSum its hash. Its bytes are those given to Append (not a copy)
	// or read back from the file.
	head    text
	headSum string
	// lastSum is the hash of the file's last record, even when head is
	// unknown.
	lastSum   string
	sinceFull int
	// ahead are the hashes of versions other processes recorded since
	// this one last appended, oldest first: when this process sees the
	// same version it skips it instead of recording it twice.
	ahead []string
}

// OpenJournal opens (creating when needed, with its directory) the
// journal at path for appending. A directory it makes is the user's alone
// (0700): a journal holds the loop's objective and prompt.
func OpenJournal(path string, opts JournalOptions) (*Journal, error) {
	if opts.MaxSize <= 0 {
		opts.MaxSize = DefaultJournalMax
	}
	if opts.FullEvery <= 0 {
		opts.FullEvery = 100
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	if opts.StateFile != "" {
		if abs, err := filepath.Abs(opts.StateFile); err == nil {
			opts.StateFile = abs
		}
	}
	lock, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	j := &Journal{path: path, opts: opts, lock: lock}
	// What is in the journal now is history; what others append from now
	// on is news (catchUp).
	if err := filelock.Lock(lock); err != nil {
		lock.Close()
		return nil, fmt.Errorf("journal %s: lock: %w", path, err)
	}
	defer filelock.Unlock(lock) //nolint:errcheck // closing releases it too
	if err := j.catchUp(); err != nil {
		lock.Close()
		return nil, err
	}
	return j, nil
}

// Path is the journal's file.
func (j *Journal) Path() string { return j.path }

// Close closes the journal's files.
func (j *Journal) Close() error {
	var err error
	if j.f != nil {
		err = j.f.Close()
		j.f = nil
	}
	if j.lock != nil {
		if e := j.lock.Close(); err == nil {
			err = e
		}
		j.lock = nil
	}
	return err
}

// Append records v unless it is the journal's last version already or
// another process has just recorded it; it reports whether it wrote. The
// journal keeps v.Data (not a copy) to diff the next version against: the
// caller must not change those bytes afterwards.
func (j *Journal) Append(v Version) (bool, error) {
	if j.lock == nil {
		return false, errors.New("journal " + j.path + " is closed")
	}
	if err := filelock.Lock(j.lock); err != nil {
		return false, fmt.Errorf("journal %s: lock: %w", j.path, err)
	}
	defer filelock.Unlock(j.lock) //nolint:errcheck // closing releases it too
	if err := j.catchUp(); err != nil {
		return false, err
	}
	s := statefile.Sum(v.Data)
	if s == j.lastSum {
		return false, nil
	}
	if i := slices.Index(j.ahead, s); i >= 0 {
		j.ahead = j.ahead[i+1:]
		return false, nil
	}
	cur := split(v.Data)
	rec, full := j.encode(v, s, &cur, false)
	if j.off > 0 && j.off+int64(len(rec)) > j.opts.MaxSize {
		if err := j.rotate(); err != nil {
			return false, err
		}
		rec, full = j.encode(v, s, &cur, true)
	}
	if err := j.write(rec); err != nil {
		j.head, j.headSum, j.lastSum = text{}, "", ""
		return false, err
	}
	j.head, j.headSum, j.lastSum = cur, s, s
	j.sinceFull++
	if full {
		j.sinceFull = 0
	}
	return true, nil
}

// catchUp (lock held) opens the journal if needed — again if it was
// rotated — and reads what other processes appended since this one last
// looked.
func (j *Journal) catchUp() error {
	fresh := false
	if j.f != nil {
		st, err := os.Stat(j.path)
		fst, ferr := j.f.Stat()
		if err != nil || ferr != nil || !os.SameFile(st, fst) {
			j.f.Close()
			j.f = nil
			j.off, j.head, j.headSum, j.lastSum, j.ahead = 0, text{}, "", "", nil
			fresh = true // a new file: all of it is news
		}
	}
	if j.f == nil {
		f, err := os.OpenFile(j.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("journal %s: %w", j.path, err)
		}
		if st, err := f.Stat(); err == nil {
			if err := statefile.Regular(j.path, st); err != nil {
				// A named pipe would take the records and block when full.
				f.Close()
				return fmt.Errorf("journal: %w", journalFix(err))
			}
		}
		j.f = f
		if !fresh {
			// First open: what is there is history, not news; only its
			// last record matters (not to record the same version twice).
			st, err := f.Stat()
			if err != nil {
				return fmt.Errorf("journal %s: %w", j.path, err)
			}
			j.off = st.Size()
			j.lastSum = lastRecordSum(f, j.off)
			return nil
		}
	}
	st, err := j.f.Stat()
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	size := st.Size()
	switch {
	case size < j.off: // truncated by someone: start over
		j.off, j.head, j.headSum, j.lastSum, j.ahead = size, text{}, "", "", nil
	case size > j.off:
		buf := make([]byte, size-j.off)
		if _, err := j.f.ReadAt(buf, j.off); err != nil && err != io.EOF {
			return fmt.Errorf("journal %s: %w", j.path, err)
		}
		// Only whole lines: a torn tail stays unread (and is ended with a
		// newline before our record).
		end := bytes.LastIndexByte(buf, '\n') + 1
		for _, line := range bytes.SplitAfter(buf[:end], []byte("\n")) {
			j.follow(line)
		}
		j.off += int64(end)
		if end < len(buf) {
			j.head, j.headSum, j.lastSum = text{}, "", ""
		}
	}
	if len(j.ahead) > 4096 {
		j.ahead = j.ahead[len(j.ahead)-4096:]
	}
	return nil
}

// follow applies a line another process appended to the known head.
func (j *Journal) follow(line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	rec, data, ok := decodeRecord(line, &j.head, j.headSum)
	if !ok {
		j.head, j.headSum, j.lastSum = text{}, "", ""
		if rec != nil && rec.Sum != "" {
			j.lastSum = rec.Sum
			j.ahead = append(j.ahead, rec.Sum)
		}
		return
	}
	j.head, j.headSum, j.lastSum = split(data), rec.Sum, rec.Sum
	j.ahead = append(j.ahead, rec.Sum)
	j.sinceFull++
	if rec.Full != "" {
		j.sinceFull = 0
	}
}

// lastRecordSum reads the hash of the last whole record of f (size bytes).
func lastRecordSum(f *os.File, size int64) string {
	const window = 1 << 20
	start := max(0, size-window)
	buf := make([]byte, size-start)
	if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
		return ""
	}
	buf = bytes.TrimRight(buf, "\n")
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		buf = buf[i+1:]
	} else if start > 0 {
		return ""
	}
	var rec record
	if json.Unmarshal(buf, &rec) != nil {
		return ""
	}
	return rec.Sum
}

// encode builds v's record line (cur is v.Data's lines): a diff against
// the head when there is one and it is small, else the version in full
// (then it says so).
func (j *Journal) encode(v Version, s string, cur *text, full bool) ([]byte, bool) {
	rec := record{V: JournalVersion, At: v.At.UTC(), Sum: s, N: len(v.Data), PID: os.Getpid()}
	if !full && j.head.lines() > 0 && !cur.unsplit() && j.sinceFull+1 < j.opts.FullEvery {
		var ops []json.RawMessage
		size := 0
		for _, o := range diff(&j.head, cur) {
			var raw []byte
			switch o.Kind {
			case textdiff.Equal:
				raw, _ = json.Marshal([2]int{o.A0, o.A1})
			case textdiff.Insert:
				raw, _ = json.Marshal(string(cur.span(o.B0, o.B1)))
			default:
				continue
			}
			ops = append(ops, raw)
			size += len(raw)
		}
		if size < len(v.Data)/2 {
			rec.Base, rec.Ops = j.headSum, ops
			if rec.Ops == nil {
				rec.Ops = []json.RawMessage{} // an empty version
			}
		}
	}
	if rec.Ops == nil {
		rec.File = j.opts.StateFile
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(v.Data)
		zw.Close()
		rec.Full = base64.StdEncoding.EncodeToString(z.Bytes())
	}
	out, _ := jsonstream.Marshal(rec) // no raw control or bidi character in the journal's lines
	return append(out, '\n'), rec.Ops == nil
}

// write appends one record (lock held) and fsyncs it.
func (j *Journal) write(rec []byte) error {
	st, err := j.f.Stat()
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	size := st.Size()
	if size > 0 {
		// A torn last record (a crash mid-write) gets its own line end,
		// so that it does not swallow ours.
		last := make([]byte, 1)
		if _, err := j.f.ReadAt(last, size-1); err == nil && last[0] != '\n' {
			rec = append([]byte{'\n'}, rec...)
		}
	}
	n, err := j.f.Write(rec)
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("journal %s: fsync: %w", j.path, err)
	}
	j.off = size + int64(n)
	return nil
}

// rotate (lock held) renames the journal to JOURNAL.1 and starts a new one.
func (j *Journal) rotate() error {
	if err := os.Rename(j.path, j.path+".1"); err != nil {
		return fmt.Errorf("journal %s: rotating: %w", j.path, err)
	}
	j.f.Close()
	f, err := os.OpenFile(j.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		j.f = nil
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	j.f, j.off, j.head, j.headSum, j.lastSum, j.ahead = f, 0, text{}, "", "", nil
	syncDir(filepath.Dir(j.path))
	return nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// decodeRecord decodes one line; head and headSum are the version of the
// record before it (for a diff; no lines when unknown). ok is false for a
// line that does not decode or check out; rec is then what could be
// decoded, if anything.
func decodeRecord(line []byte, head *text, headSum string) (*record, []byte, bool) {
	rec, data, ok := decodeUnchecked(line, head, headSum)
	if !ok || statefile.Sum(data) != rec.Sum {
		return rec, nil, false
	}
	return rec, data, true
}

// decodeUnchecked is decodeRecord without the hash check (the length is
// checked): for a reader that checks only the versions it keeps, the
// others being the bases of the next diffs (see tailVersions).
func decodeUnchecked(line []byte, head *text, headSum string) (*record, []byte, bool) {
	var rec record
	if err := json.Unmarshal(line, &rec); err != nil || rec.V != JournalVersion || rec.Sum == "" {
		return nil, nil, false
	}
	var data []byte
	switch {
	case rec.Full != "":
		z, err := base64.StdEncoding.DecodeString(rec.Full)
		if err != nil {
			return &rec, nil, false
		}
		zr, err := gzip.NewReader(bytes.NewReader(z))
		if err != nil {
			return &rec, nil, false
		}
		// Read into room for the n bytes the record names (io.ReadAll
		// grew its buffer by doubling: twice a large version's size
		// allocated); n is the file's word, so no more room is made than
		// a state file may have.
		buf := bytes.NewBuffer(make([]byte, 0, min(max(rec.N, 0), statefile.DefaultMaxSize)+bytes.MinRead))
		if _, err := buf.ReadFrom(io.LimitReader(zr, int64(rec.N)+1)); err != nil {
			return &rec, nil, false
		}
		data = buf.Bytes()
	case rec.Ops != nil:
		if head.lines() == 0 || rec.Base != headSum {
			return &rec, nil, false
		}
		// n is the file's word, maybe damaged: no more room than the
		// head and the record could make.
		data = make([]byte, 0, min(max(rec.N, 0), len(head.data)+len(line)))
		for _, raw := range rec.Ops {
			var text string
			var span [2]int
			switch {
			case json.Unmarshal(raw, &text) == nil:
				data = append(data, text...)
			case json.Unmarshal(raw, &span) == nil && span[0] >= 0 && span[0] <= span[1] && span[1] <= head.lines():
				data = append(data, head.span(span[0], span[1])...)
			default:
				return &rec, nil, false
			}
		}
	default:
		return &rec, nil, false
	}
	if len(data) != rec.N {
		return &rec, nil, false
	}
	return &rec, data, true
}

// journalFix gives a journal path that is not a regular file the advice
// for a journal: it is aot-tui's own file, made again when removed.
func journalFix(err error) error {
	var odd *statefile.OddFileError
	if errors.As(err, &odd) {
		odd.Fix = "remove it (aot-tui makes the journal again) or give the path of a journal"
	}
	return err
}

// readRegular reads a journal file whole; a named pipe (or anything else
// that is not a regular file) at the path is refused, not waited on.
func readRegular(path string) ([]byte, error) {
	f, err := statefile.OpenRegular(path)
	if err != nil {
		return nil, journalFix(err)
	}
	defer f.Close()
	return io.ReadAll(f)
}

// ReadJournal reads the versions of a journal file in order, and notes
// about records it skipped (a torn last line; damaged records). A version
// equal to the one before it is not repeated.
func ReadJournal(path string) ([]Version, []string, error) {
	data, err := readRegular(path)
	if err != nil {
		return nil, nil, err
	}
	var out []Version
	var notes []string
	var head text
	headSum, file := "", ""
	lineNo := 0
	for len(data) > 0 {
		lineNo++
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			notes = append(notes, fmt.Sprintf("%s line %d: the last record is incomplete (a write cut short): ignored", path, lineNo))
			break
		}
		line := data[:i]
		data = data[i+1:]
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		rec, v, ok := decodeRecord(line, &head, headSum)
		if !ok {
			why := "does not decode"
			if rec != nil && rec.Ops != nil && rec.Base != headSum {
				why = "is a diff against a version that is not the one before it"
			} else if rec != nil {
				why = "does not check out (damaged)"
			}
			notes = append(notes, fmt.Sprintf("%s line %d: the record %s: skipped", path, lineNo, why))
			head, headSum = text{}, ""
			continue
		}
		head, headSum = split(v), rec.Sum
		if rec.File != "" {
			file = rec.File
		}
		if len(out) > 0 && bytes.Equal(out[len(out)-1].Data, v) {
			continue
		}
		out = append(out, Version{At: rec.At, Data: v, File: file})
	}
	return out, notes, nil
}

// ReadJournalAll reads a journal with the one it rotated out before it
// (JOURNAL.1), oldest first.
func ReadJournalAll(path string) ([]Version, []string, error) {
	older, notes, err := ReadJournal(path + ".1")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	newer, more, err := ReadJournal(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && len(older) > 0 {
			return older, notes, nil
		}
		return nil, nil, err
	}
	if len(older) > 0 && len(newer) > 0 && bytes.Equal(older[len(older)-1].Data, newer[0].Data) {
		newer = newer[1:]
	}
	return append(older, newer...), append(notes, more...), nil
}
