package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Kind tells the two loop state formats apart.
type Kind int

// State file kinds.
const (
	// KindAoT is an AoT loop's .claude/aot-loop-state.md.
	KindAoT Kind = iota
	// KindPhaseLoop is a phase loop's .claude/autonomous-loop.json.
	KindPhaseLoop
)

func (k Kind) String() string {
	if k == KindPhaseLoop {
		return "phase-loop"
	}
	return "aot-loop"
}

// Conventional locations of the state files inside a project.
const (
	AoTStateRel  = ".claude/aot-loop-state.md"
	PhaseLoopRel = ".claude/autonomous-loop.json"
)

// Target is a resolved state file path and its kind.
type Target struct {
	Path string
	Kind Kind
	// Exists is false when the file is not there (yet).
	Exists bool
}

// ErrNotFound is wrapped when no state file exists where one was expected.
var ErrNotFound = errors.New("state file not found")

// Discover resolves what the user pointed at: a state file, or a directory
// whose .claude/aot-loop-state.md (else .claude/autonomous-loop.json) is
// meant. "" is the current directory. When nothing exists yet the target is
// where the AoT state file will appear, with Exists false (the error wraps
// ErrNotFound). When the path (or the state file in the directory) holds
// something other than a regular file — a named pipe, a directory named
// like a state file, a socket — or is a symbolic link loop, the target is
// that path and the error an *OddFileError (ErrNotRegular, ErrSymlinkLoop):
// CanWait says the TUI may wait there for the state file all the same.
func Discover(path string) (Target, error) {
	if path == "" {
		path = "."
	}
	info, err := os.Stat(path)
	switch {
	case err == nil && info.IsDir():
		candidates := []Target{
			{Path: filepath.Join(path, AoTStateRel), Kind: KindAoT},
			{Path: filepath.Join(path, PhaseLoopRel), Kind: KindPhaseLoop},
		}
		if filepath.Base(filepath.Clean(path)) == ".claude" {
			// Pointed at the .claude directory itself.
			candidates = append(candidates,
				Target{Path: filepath.Join(path, filepath.Base(AoTStateRel)), Kind: KindAoT},
				Target{Path: filepath.Join(path, filepath.Base(PhaseLoopRel)), Kind: KindPhaseLoop})
		}
		// The first regular file wins; else the first candidate that holds
		// something else (a FIFO, a directory, a link loop) is refused.
		var odd error
		var oddTarget Target
		for _, c := range candidates {
			fi, err := os.Stat(c.Path)
			switch {
			case err == nil && fi.Mode().IsRegular():
				c.Exists = true
				return c, nil
			case odd != nil:
			case err == nil:
				odd, oddTarget = notRegular(c.Path, fi.Mode()), c
			case isLoop(err):
				odd, oddTarget = symlinkLoop(c.Path), c
			}
		}
		if odd != nil {
			return oddTarget, odd
		}
		if isStateFileName(path) {
			// A directory named as a state file (.claude/aot-loop-state.md
			// made a directory) with no loop inside is not a project. A
			// project directory that merely ends in .md (site.md) is one:
			// its state file is waited for.
			return Target{Path: path, Kind: kindOf(path)}, notRegular(path, info.Mode())
		}
		t := candidates[0]
		if len(candidates) > 2 {
			t = candidates[2]
		}
		return t, fmt.Errorf("%w: no %s or %s in %s", ErrNotFound, AoTStateRel, PhaseLoopRel, path)
	case err == nil && !info.Mode().IsRegular():
		return Target{Path: path, Kind: kindOf(path)}, notRegular(path, info.Mode())
	case err == nil:
		return Target{Path: path, Kind: kindOf(path), Exists: true}, nil
	case errors.Is(err, fs.ErrNotExist), isLoop(err):
		// Not there yet (or a link loop, which may be mended): a name like
		// a state file is that file; anything else is a project directory
		// whose state file will appear.
		t := Target{Path: path, Kind: kindOf(path)}
		if !fileLike(path) {
			t = Target{Path: filepath.Join(path, AoTStateRel), Kind: KindAoT}
		}
		if isLoop(err) {
			return t, symlinkLoop(path)
		}
		return t, fmt.Errorf("%w: %s does not exist", ErrNotFound, path)
	default:
		return Target{Path: path, Kind: kindOf(path)}, err
	}
}

// isStateFileName reports whether path's last element is a state file's
// name (aot-loop-state.md, autonomous-loop.json).
func isStateFileName(path string) bool {
	base := filepath.Base(path)
	return base == filepath.Base(AoTStateRel) || base == filepath.Base(PhaseLoopRel)
}

// fileLike reports whether path is named like a state file (.md, .json,
// .yaml, .yml) rather than like a project directory.
func fileLike(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".json", ".yaml", ".yml":
		return true
	}
	return false
}

func kindOf(path string) Kind {
	if strings.EqualFold(filepath.Ext(path), ".json") {
		return KindPhaseLoop
	}
	return KindAoT
}

// ReadFile reads a state file, refusing files larger than limit bytes
// (DefaultMaxSize when limit <= 0). Size errors are *Error with the path.
// What is not a regular file is refused at once, never waited on: see
// OpenRegular.
func ReadFile(path string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultMaxSize
	}
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(0)
	if fi, err := f.Stat(); err == nil {
		if fi.Size() > limit {
			e := sizeError(fi.Size(), limit)
			e.Path = path
			return nil, e
		}
		size = fi.Size()
	}
	// The file may grow while we read it; never read more than the limit.
	// Reading into a buffer of the file's size (plus room to see EOF)
	// avoids io.ReadAll's repeated growing.
	buf := bytes.NewBuffer(make([]byte, 0, size+512))
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	if int64(len(data)) > limit {
		e := sizeError(int64(len(data)), limit)
		e.Path = path
		return nil, e
	}
	return data, nil
}

// Load reads and parses an AoT state file. Parse errors carry the path.
func Load(path string, limit int64) (*Document, error) { return loadWith(path, limit, Parse) }

// loadWith reads the file at path (ReadFile) and parses its bytes with
// parse, whose errors then carry the path.
func loadWith(path string, limit int64, parse func(data []byte) (*Document, error)) (*Document, error) {
	data, err := ReadFile(path, limit)
	if err != nil {
		return nil, err
	}
	doc, err := parse(data)
	if err != nil {
		return nil, withPath(err, path)
	}
	return doc, nil
}

// LoadReparse is Load whose Document remembers what a Reparse of another
// version of the file needs, as Reparse(nil, data) does: for reading
// versions of the file after it (a journal's: history.GoneFromJournal),
// each then parsed from it entry by entry rather than whole. read, when
// not nil, is given the file's bytes before they are parsed (and must
// not modify them).
func LoadReparse(path string, limit int64, read func(data []byte)) (*Document, error) {
	return loadWith(path, limit, func(data []byte) (*Document, error) {
		if read != nil {
			read(data)
		}
		return Reparse(nil, data)
	})
}

// ProjectDir is the directory a loop's checks run in: the one holding
// .claude/ for a state file inside .claude/, else the state file's own.
func ProjectDir(statePath string) string {
	abs, err := filepath.Abs(statePath)
	if err != nil {
		abs = statePath
	}
	dir := filepath.Dir(abs)
	if filepath.Base(dir) == ".claude" {
		return filepath.Dir(dir)
	}
	return dir
}

// ErrNotRegular is wrapped by the error for a state file path that holds
// something other than a regular file (after following symbolic links): a
// named pipe, a directory, a socket, a device. aot-tui never opens such a
// path for reading in a way that could block (a FIFO's open waits for a
// writer for ever), and never reads it.
var ErrNotRegular = errors.New("not a regular file")

// ErrSymlinkLoop is wrapped by the error for a path whose symbolic links
// never end (ELOOP). The TUI treats it as a file not there yet; one-shot
// commands report it.
var ErrSymlinkLoop = errors.New("symbolic link loop")

// OddFileError is a state file path that holds no regular file: a named
// pipe, a directory, a socket, a device (Err is ErrNotRegular), or a
// symbolic link loop (Err is ErrSymlinkLoop). It renders as one line that
// names the path, says what is there and what to do:
//
//	.claude/aot-loop-state.md is a named pipe (FIFO), not a regular file: aot-tui reads only regular files; replace it with the state file
type OddFileError struct {
	Path string
	// What is what the path holds, with its article: "a named pipe (FIFO)".
	What string
	// Err is ErrNotRegular or ErrSymlinkLoop.
	Err error
	// Fix says what to do; empty, the advice for a state file (replace
	// it with the state file; point the link at it or remove it). Other
	// files aot-tui reads (the journal) set their own.
	Fix string
}

func (e *OddFileError) Error() string {
	fix := e.Fix
	if e.Err == ErrSymlinkLoop {
		if fix == "" {
			fix = "point the link at the state file or remove it"
		}
		return e.Path + " is " + e.What + ": aot-tui reads only regular files; " + fix
	}
	if fix == "" {
		fix = "replace it with the state file"
	}
	return e.Path + " is " + e.What + ", not a regular file: aot-tui reads only regular files; " + fix
}

func (e *OddFileError) Unwrap() error { return e.Err }

// CanWait reports whether err (from Discover) leaves a target the TUI can
// wait at: nothing is there yet, a symbolic link loop is (it may be fixed),
// or something that is not a regular file is (it may be replaced). The
// watcher says which, and picks the state file up when it appears.
func CanWait(err error) bool {
	return errors.Is(err, ErrNotFound) || errors.Is(err, ErrNotRegular) || errors.Is(err, ErrSymlinkLoop)
}

// Regular is nil when fi, path's, is a regular file, else the
// *OddFileError that refuses it (for a file opened some other way).
func Regular(path string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return notRegular(path, fi.Mode())
}

// notRegular is the error for path, which holds a file of mode m that is
// not regular.
func notRegular(path string, m fs.FileMode) error {
	return &OddFileError{Path: path, What: whatMode(m), Err: ErrNotRegular}
}

// symlinkLoop is the error for path, whose symbolic links never end.
func symlinkLoop(path string) error {
	return &OddFileError{Path: path, What: "a symbolic link loop (too many levels of symbolic links)", Err: ErrSymlinkLoop}
}

// isLoop reports whether err is ELOOP: too many levels of symbolic links.
func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }

// whatMode names what a file of mode m is, with its article.
func whatMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

// OpenRegular opens path for reading, refusing at once (an *OddFileError)
// whatever is not a regular file after following links, without an open
// that could block: on Unix the open does not wait for a FIFO's writer
// (O_NONBLOCK, then fstat; the descriptor is made blocking again for a
// regular file), elsewhere the path is stat'd first and the open file
// again. Other errors are the *fs.PathError os.Open would return.
func OpenRegular(path string) (*os.File, error) {
	if statFirst {
		return openStatFirst(path)
	}
	return openRegular(path)
}

// statFirst makes OpenRegular stat the path before opening it, as it does
// where there is no non-blocking open (Windows): tests set it to run that
// path on Unix too.
var statFirst = false

// openStatFirst is OpenRegular where an open cannot be made non-blocking:
// stat, refuse what is not regular, open, and check the open file again
// (the path may have been replaced in between).
func openStatFirst(path string) (*os.File, error) {
	return openChecked(path, os.Open)
}

// openChecked stats path, refuses what is not a regular file, opens it
// with open and checks the open file again.
func openChecked(path string, open func(string) (*os.File, error)) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		if isLoop(err) {
			return nil, symlinkLoop(path)
		}
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi.Mode())
	}
	f, err := open(path)
	if err != nil {
		if isLoop(err) {
			return nil, symlinkLoop(path)
		}
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(path, fi.Mode())
	}
	return f, nil
}
