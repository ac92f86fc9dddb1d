package verify

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// checkFile runs a file or not_file check as verify_file.py does: a value
// holding '*' or '?' is a glob pattern (see glob.go) that must match at
// least one path; any other value is a path that must exist (a directory
// counts; a broken link does not). Relative values are taken from Dir.
// An empty value fails (the script would test ".", which always exists).
func (r *runner) checkFile(res *Result, expectMissing bool) {
	value := res.Value
	if value == "" {
		res.Outcome = Fail
		res.Evidence = "No path given"
		res.Reason = "the check's value is empty: there is no path to look for"
		return
	}
	var isDir bool
	var files int
	var size int64
	if strings.ContainsAny(value, "*?") {
		res.IsGlob = true
		g := &globber{ctx: r.ctx, dir: r.opts.Dir}
		matches, err := g.glob(value)
		if err != nil && r.ctx.Err() != nil {
			res.Outcome = NotRun
			res.Reason = "not run to the end: the run was stopped while the pattern was matched"
			return
		}
		res.Matches = len(matches)
		res.Exists = res.Matches > 0
	} else {
		p := strings.TrimRight(value, "/")
		if p == "" {
			p = "/"
		}
		if !filepath.IsAbs(p) && r.opts.Dir != "" {
			p = filepath.Join(r.opts.Dir, p)
		}
		if fi, err := os.Stat(p); err == nil {
			res.Exists = true
			isDir = fi.IsDir()
			if isDir {
				files = countFiles(p)
			} else {
				size = fi.Size()
			}
		}
	}
	passed := res.Exists != expectMissing
	res.Outcome = Fail
	if passed {
		res.Outcome = Pass
	}
	res.Evidence = fileEvidence(value, expectMissing, passed, res.IsGlob, res.Matches, isDir, files, size)
}

// fileEvidence words the verdict as verify_file.py does.
func fileEvidence(value string, expectMissing, passed, isGlob bool, matches int, isDir bool, files int, size int64) string {
	switch {
	case expectMissing && passed && isGlob:
		return "No files match pattern (as expected): " + value
	case expectMissing && passed:
		return "Path does not exist (as expected): " + value
	case expectMissing && isGlob:
		return fmt.Sprintf("%d files match pattern (expected none): %s", matches, value)
	case expectMissing && isDir:
		return fmt.Sprintf("Directory exists with %d files (expected missing): %s", files, value)
	case expectMissing:
		return fmt.Sprintf("File exists (%s) (expected missing): %s", sizeString(size), value)
	case passed && isGlob:
		return fmt.Sprintf("%d files match pattern: %s", matches, value)
	case passed && isDir:
		return fmt.Sprintf("Directory exists with %d files: %s", files, value)
	case passed:
		return fmt.Sprintf("File exists (%s): %s", sizeString(size), value)
	case isGlob:
		return "No files match pattern: " + value
	}
	return "Path not found: " + value
}

// sizeString is the script's size_str: 512B, 1.5KB, 2.0MB.
func sizeString(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1fKB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1fMB", float64(n)/(1024*1024))
}

// countFiles counts the regular files under dir (links to files
// included, linked directories not entered), as the script's
// len([f for f in path.rglob("*") if f.is_file()]) does.
func countFiles(dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		switch {
		case d.Type().IsRegular():
			n++
		case d.Type()&fs.ModeSymlink != 0:
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				n++
			}
		}
		return nil
	})
	return n
}
