package agent

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/aot-loop/aot-tui/statefile"
)

// ProjectsRoot is where Claude Code keeps its transcripts:
// $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects.
func ProjectsRoot() (string, error) {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, "projects"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.New("no directory for Claude Code's transcripts: neither $CLAUDE_CONFIG_DIR nor the home directory is set")
	}
	return filepath.Join(home, ".claude", "projects"), nil
}

// maxDirName is the longest directory name Claude Code gives a working
// directory before it cuts the name and adds a hash.
const maxDirName = 200

// DirName is the name Claude Code gives the transcript directory of the
// working directory cwd (an absolute path): every character that is not
// an ASCII letter or digit replaced with '-' — JavaScript's
// replace(/[^a-zA-Z0-9]/g, "-") on UTF-16 code units, so a character
// outside the Basic Multilingual Plane becomes two — and, past 200
// characters, the first 200 followed by '-' and a hash of the path (cut
// true). The hash is not computed: Claude Code's builds have used
// different ones (Node's and Bun's), so a cut name is matched by its
// prefix and confirmed by the cwd its transcripts record (Dirs).
func DirName(cwd string) (name string, cut bool) {
	var b strings.Builder
	n := 0
	for _, r := range cwd {
		units := 1
		if r >= 0x10000 && utf16.RuneLen(r) == 2 {
			units = 2
		}
		for range units {
			if r < 0x80 && (('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) {
				b.WriteRune(r)
			} else {
				b.WriteByte('-')
			}
			n++
		}
	}
	name = b.String()
	if n <= maxDirName {
		return name, false
	}
	return name[:maxDirName], true
}

// spellings are the ways Claude Code may have recorded the project
// directory: absolute as given, and with its links resolved (the cwd a
// process reports).
func spellings(project string) []string {
	abs, err := filepath.Abs(project)
	if err != nil {
		abs = filepath.Clean(project)
	}
	out := []string{abs}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		out = append(out, real)
	}
	return out
}

// sameDir says whether the recorded cwd is one of the spellings (case
// ignored on Windows and macOS, whose file systems usually ignore it).
func sameDir(cwd string, spellings []string) bool {
	cwd = filepath.Clean(cwd)
	for _, s := range spellings {
		if cwd == s || ((runtime.GOOS == "windows" || runtime.GOOS == "darwin") && strings.EqualFold(cwd, s)) {
			return true
		}
	}
	return false
}

// Dirs are the transcript directories under root of the project
// directory project: the one named by DirName (for a cut name, those
// whose name begins with the cut name and a '-' and whose transcripts
// record the project as their cwd); when there is none, every directory
// under root whose transcripts record the project as their cwd (the name
// rule may change again). scanned says the fallback ran.
func Dirs(root, project string) (dirs []string, scanned bool) {
	sp := spellings(project)
	if dirs = namedDirs(root, sp); len(dirs) > 0 {
		return dirs, false
	}
	return scanDirs(root, sp), true
}

// namedDirs are the directories Claude Code's naming rule gives the
// project's spellings (cheap: a stat, or for a cut name one listing of
// root).
func namedDirs(root string, sp []string) []string {
	var dirs []string
	for _, p := range sp {
		name, cut := DirName(p)
		if !cut {
			d := filepath.Join(root, name)
			if isDir(d) && !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
			continue
		}
		entries, _ := os.ReadDir(root)
		for _, e := range entries {
			if e.IsDir() && strings.HasPrefix(e.Name(), name+"-") {
				d := filepath.Join(root, e.Name())
				if cwd := cwdOfDir(d); (cwd == "" || sameDir(cwd, sp)) && !slices.Contains(dirs, d) {
					dirs = append(dirs, d)
				}
			}
		}
	}
	return dirs
}

// scanDirs are the directories under root whose transcripts record one
// of the spellings as their cwd (the start of a transcript of each
// directory read).
func scanDirs(root string, sp []string) []string {
	var dirs []string
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		d := filepath.Join(root, e.Name())
		if cwd := cwdOfDir(d); cwd != "" && sameDir(cwd, sp) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// cwdOfDir is the cwd the transcripts of dir record ("" none): the first
// of its first three transcripts (by name) that records one. Every
// transcript of a directory records the same cwd (the directory is named
// after it), so none is stat'ed for its age: a look through a root of
// hundreds of projects stays cheap.
func cwdOfDir(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	tried := 0
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		if cwd := cwdOfFile(filepath.Join(dir, e.Name())); cwd != "" {
			return cwd
		}
		if tried++; tried == 3 {
			break
		}
	}
	return ""
}

// cwdOfFile is the first cwd a transcript's first 16 KiB record.
func cwdOfFile(path string) string {
	f, err := statefile.OpenRegular(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 16<<10)
	n, _ := io.ReadFull(f, buf)
	buf = buf[:n]
	for len(buf) > 0 {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break // a torn last line: not read
		}
		if l, ok := ParseLine(buf[:i]); ok && l.CWD != "" {
			return l.CWD
		}
		buf = buf[i+1:]
	}
	return ""
}

// transcript is one transcript file: a session's main file or one of its
// sub-agents' files.
type transcript struct {
	path string
	ref  FileRef
}

// sessionFiles lists the transcripts of dir written since since: each
// <session>.jsonl modified since then, or whose sub-agents' files were,
// with its <session>/subagents/agent-<id>.jsonl files.
func sessionFiles(dir string, since time.Time) ([]transcript, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []transcript
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".jsonl") || e.IsDir() {
			continue
		}
		id := strings.TrimSuffix(name, ".jsonl")
		main := filepath.Join(dir, name)
		subs := subagentFiles(filepath.Join(dir, id, "subagents"), id)
		recent := since.IsZero()
		if !recent {
			if fi, err := e.Info(); err == nil && !fi.ModTime().Before(since) {
				recent = true
			}
		}
		for _, s := range subs {
			if recent {
				break
			}
			if fi, err := os.Stat(s.path); err == nil && !fi.ModTime().Before(since) {
				recent = true
			}
		}
		if !recent {
			continue
		}
		out = append(out, transcript{path: main, ref: FileRef{Session: id, Path: main}})
		out = append(out, subs...)
	}
	return out, nil
}

// subagentFiles are the agent-<id>.jsonl files of a session's subagents
// directory.
func subagentFiles(dir, session string) []transcript {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []transcript
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, "agent-") || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		out = append(out, transcript{path: filepath.Join(dir, name), ref: FileRef{Session: session, Agent: strings.TrimSuffix(strings.TrimPrefix(name, "agent-"), ".jsonl")}})
	}
	return out
}
