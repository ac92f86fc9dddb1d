package history

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/statefile"
)

// FromGit reads the versions of the file at path from the commits of its
// git repository that touched it, oldest first, each at its commit time.
// Versions that do not parse as a state file are skipped with a note
// naming the commit; so is a commit that deleted the file.
func FromGit(path string) ([]Version, []string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, err
	}
	dir, name := filepath.Dir(abs), filepath.Base(abs)
	git := func(args ...string) ([]byte, error) {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			msg := strings.TrimSpace(stderr.String())
			if msg == "" {
				msg = err.Error()
			}
			return nil, fmt.Errorf("git %s: %s", args[0], msg)
		}
		return out, nil
	}
	log, err := git("log", "--reverse", "--format=%H %ct %s", "--", name)
	if err != nil {
		return nil, nil, err
	}
	var out []Version
	var notes []string
	for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		f := strings.SplitN(line, " ", 3)
		if len(f) < 2 {
			continue
		}
		hash, subject := f[0], ""
		if len(f) == 3 {
			subject = f[2]
		}
		secs, _ := strconv.ParseInt(f[1], 10, 64)
		data, err := git("show", hash+":./"+name)
		if err != nil {
			notes = append(notes, fmt.Sprintf("commit %s (%s): no %s in it (deleted?): skipped", hash[:12], subject, name))
			continue
		}
		if _, err := statefile.Parse(data); err != nil {
			notes = append(notes, fmt.Sprintf("commit %s (%s): does not parse: %s: skipped", hash[:12], subject, textfmt.OneLine(err.Error())))
			continue
		}
		if len(out) > 0 && bytes.Equal(out[len(out)-1].Data, data) {
			continue
		}
		out = append(out, Version{At: time.Unix(secs, 0).UTC(), Data: data})
	}
	if len(out) == 0 && len(notes) == 0 {
		return nil, nil, fmt.Errorf("%s: no commit touches it (is it tracked by git?)", path)
	}
	return out, notes, nil
}
