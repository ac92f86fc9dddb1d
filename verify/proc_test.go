package verify

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/model"
)

// recordTree records what runCommand asks of the platform's procTree. The
// timeout's kill comes from os/exec's own goroutine: the log is locked.
type recordTree struct {
	procTree
	log *treeLog
}

type treeLog struct {
	mu    sync.Mutex
	steps []string
}

func (l *treeLog) add(step string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.steps = append(l.steps, step)
}

func (l *treeLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.steps, " ")
}

func (r recordTree) started(cmd *exec.Cmd) {
	r.log.add("started")
	r.procTree.started(cmd)
}

func (r recordTree) kill() error {
	r.log.add("kill")
	return r.procTree.kill()
}

func (r recordTree) close() {
	r.log.add("close")
	r.procTree.close()
}

func withProcTree(t *testing.T, f func(*exec.Cmd) procTree) {
	prev := newProcTree
	newProcTree = f
	t.Cleanup(func() { newProcTree = prev })
}

// When the tree is killed: once the command is done (what it left in the
// background), and first on the timeout; it is closed last, every time.
// A command that cannot start is never told started nor killed.
func TestProcTreeIsKilledOnTimeoutAndWhenDone(t *testing.T) {
	needPOSIXShell(t)
	log := &treeLog{}
	withProcTree(t, func(cmd *exec.Cmd) procTree {
		log.add("new")
		return recordTree{platformProcTree(cmd), log}
	})
	bc := model.BaseCase{IsChecklist: true, Checklist: []model.ChecklistItem{
		{Item: "quick", Check: &model.Check{Type: model.CheckCommand, Value: "exit 3"}},
		{Item: "hangs", Check: &model.Check{Type: model.CheckCommand, Value: "sleep 60"}},
	}}
	rep := Run(context.Background(), bc, Options{Dir: t.TempDir(), Timeout: 300 * time.Millisecond})
	if got, want := log.String(), "new started kill close new started kill kill close"; got != want {
		t.Fatalf("the trees were asked: %s\nwant: %s", got, want)
	}
	if r := rep.Items[0]; r.ExitCode != 3 || r.Outcome != Fail || r.TimedOut {
		t.Errorf("quick: exit %d outcome %s timed out %v", r.ExitCode, r.Outcome, r.TimedOut)
	}
	if r := rep.Items[1]; !r.TimedOut || r.ExitCode != -1 || !strings.HasSuffix(r.Reason, "; its process group was killed") {
		t.Errorf("hangs: timed out %v exit %d reason %q", r.TimedOut, r.ExitCode, r.Reason)
	}

	log = &treeLog{}
	rep = Run(context.Background(), bc, Options{Dir: filepath.Join(t.TempDir(), "missing"), Timeout: time.Second})
	if got, want := log.String(), "new close new close"; got != want {
		t.Fatalf("commands that could not start: the trees were asked %s, want %s", got, want)
	}
	if r := rep.Items[0]; r.Ran || r.Outcome != Fail || !strings.Contains(r.Reason, "could not be started") {
		t.Errorf("a shell that cannot start: ran %v outcome %s reason %q", r.Ran, r.Outcome, r.Reason)
	}
}

// The fallback of systems with neither process groups nor job objects
// kills the shell alone: the timeout still ends the check (the output
// pipes a background child holds are closed after waitDelay), the reason
// says what was killed, and the run goes on.
func TestShellOnlyFallbackStillEndsTheCheck(t *testing.T) {
	needPOSIXShell(t)
	withProcTree(t, newShellTree)
	dir, rep := runHanging(t)
	if data, err := os.ReadFile(filepath.Join(dir, "child.pid")); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill() // the child the fallback leaves behind
			}
		}
	}
	r := rep.Items[0]
	if !r.TimedOut || r.Outcome != Fail || r.ExitCode != -1 || r.Stdout.Text != "started\n" {
		t.Fatalf("timed out %v outcome %s exit %d stdout %q", r.TimedOut, r.Outcome, r.ExitCode, r.Stdout.Text)
	}
	if !strings.Contains(r.Reason, "the shell was killed") {
		t.Errorf("reason %q does not say only the shell was killed", r.Reason)
	}
	if rep.Items[1].Outcome != Pass {
		t.Errorf("the check after the timeout: %s", rep.Items[1].Outcome)
	}
}
