//go:build unix

package main

import (
	"syscall"
	"testing"
)

// A stream ends, exit 0, on SIGTERM (a service stopped), SIGINT (Ctrl-C)
// and SIGHUP (its terminal or ssh session went) while its stdin is still
// open.
func TestStreamsEndOnSignals(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	path := writeFile(t, dir, "p/.claude/aot-loop-state.md", exitState)
	for _, s := range []struct {
		args  []string
		first string
	}{
		{[]string{"status", "--scan", dir, "--json", "--follow"}, "snapshot"},
		{[]string{"cat", "--follow", path}, "version"},
	} {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
			t.Run(s.args[0]+"/"+sig.String(), func(t *testing.T) {
				p := startStream(t, bin, s.args...)
				p.next(s.first, kindIs(s.first))
				if err := p.cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				if code := p.wait(); code != 0 || p.stderr.Len() > 0 {
					t.Fatalf("%v: exit %d, stderr %q; want 0 and nothing", sig, code, p.stderr.String())
				}
			})
		}
	}
}

// A stream started with no stdin (/dev/null: a service, nohup) is no link
// that can close: it keeps streaming — its heartbeats keep coming long
// after /dev/null said end of file — until it is signalled.
func TestStreamWithoutStdinRunsUntilSignalled(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	path := writeFile(t, dir, "p/.claude/aot-loop-state.md", exitState)
	for _, s := range []struct {
		args  []string
		first string
	}{
		{[]string{"status", "--scan", dir, "--json", "--follow", "--heartbeat", "20ms"}, "snapshot"},
		{[]string{"cat", "--follow", path, "--heartbeat", "20ms"}, "version"},
	} {
		t.Run(s.args[0], func(t *testing.T) {
			p := launchStream(t, false, bin, s.args...)
			p.next(s.first, kindIs(s.first))
			for i := 0; i < 5; i++ {
				p.next("a heartbeat", kindIs("heartbeat"))
			}
			if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if code := p.wait(); code != 0 {
				t.Fatalf("exit %d", code)
			}
		})
	}
}
