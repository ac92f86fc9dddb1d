//go:build unix

package remote

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/internal/testenv"
)

// Over a real ssh to a real sshd: the arguments arrive as they were
// given (a space, a quote, a $(…) that must not run), and a link whose
// server is killed goes lost, then live again once the server is back.
func TestLinkOverRealSSH(t *testing.T) {
	s := testenv.StartSSHD(t)
	dir := t.TempDir()
	pwned := filepath.Join(dir, "pwned")
	// The far side prints each argument on a line, then waits for its
	// stdin to close (as aot-tui's streams do).
	h := Host{Name: "box", Target: s.Host, Dirs: []string{"~"},
		Transport: []string{"ssh", "-F", s.Config, "-o", "ServerAliveInterval=1", "-o", "ServerAliveCountMax=2", "HOST",
			"printf", "'%s\\n'", "…", ";", "cat", ">/dev/null"}}
	args := []string{"a b", "it's", "$(touch " + pwned + ")", "`touch " + pwned + "`", "--json"}
	var mu sync.Mutex
	var lines []string
	st := newStatuses()
	l := StartLink(LinkOptions{Argv: h.Command(args...), MinBackoff: 50 * time.Millisecond, MaxBackoff: 200 * time.Millisecond,
		OnConnect: func() { mu.Lock(); lines = nil; mu.Unlock() },
		OnLine:    func(b []byte) error { mu.Lock(); lines = append(lines, string(b)); mu.Unlock(); return nil },
		OnStatus:  st.add})
	defer l.Stop()
	st.waitFor(t, Live)
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		got := strings.Join(lines, "\n")
		mu.Unlock()
		if got == strings.Join(args, "\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the far side got\n%s\nwant\n%s", got, strings.Join(args, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("an argument ran as a command on the far side")
	}

	s.Stop()
	if lost := st.waitFor(t, Lost); lost.Reason == "" || strings.ContainsAny(lost.Reason, "\n\x1b") {
		t.Errorf("lost %+v: want one line saying why", lost)
	}
	s.Start()
	st.waitFor(t, Live)
}
