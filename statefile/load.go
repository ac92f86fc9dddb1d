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
// where the AoT state file will appear, with Exists false.
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
		for _, c := range candidates {
			if fi, err := os.Stat(c.Path); err == nil && !fi.IsDir() {
				c.Exists = true
				return c, nil
			}
		}
		t := candidates[0]
		if len(candidates) > 2 {
			t = candidates[2]
		}
		return t, fmt.Errorf("%w: no %s or %s in %s", ErrNotFound, AoTStateRel, PhaseLoopRel, path)
	case err == nil:
		return Target{Path: path, Kind: kindOf(path), Exists: true}, nil
	case errors.Is(err, fs.ErrNotExist):
		// Not there yet: a name like a state file is that file; anything
		// else is a project directory whose state file will appear.
		ext := strings.ToLower(filepath.Ext(path))
		if ext != ".md" && ext != ".json" && ext != ".yaml" && ext != ".yml" {
			return Target{Path: filepath.Join(path, AoTStateRel), Kind: KindAoT}, fmt.Errorf("%w: %s does not exist", ErrNotFound, path)
		}
		return Target{Path: path, Kind: kindOf(path)}, fmt.Errorf("%w: %s does not exist", ErrNotFound, path)
	default:
		return Target{Path: path, Kind: kindOf(path)}, err
	}
}

func kindOf(path string) Kind {
	if strings.EqualFold(filepath.Ext(path), ".json") {
		return KindPhaseLoop
	}
	return KindAoT
}

// ReadFile reads a state file, refusing files larger than limit bytes
// (DefaultMaxSize when limit <= 0). Size errors are *Error with the path.
func ReadFile(path string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultMaxSize
	}
	f, err := os.Open(path)
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
func Load(path string, limit int64) (*Document, error) {
	data, err := ReadFile(path, limit)
	if err != nil {
		return nil, err
	}
	doc, err := Parse(data)
	if err != nil {
		return nil, withPath(err, path)
	}
	return doc, nil
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
