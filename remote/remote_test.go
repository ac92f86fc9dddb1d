package remote

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/internal/testenv"
)

// The test binary is also the far side: run with AOT_REMOTE_HELPER set,
// it behaves as the mode says (TestMain).
func TestMain(m *testing.M) {
	if mode := os.Getenv("AOT_REMOTE_HELPER"); mode != "" {
		helper(mode)
		return
	}
	os.Exit(testenv.Main(m))
}

func helper(mode string) {
	switch mode {
	case "lines": // three lines, then wait for stdin to close
		fmt.Println(`{"n":1}`)
		fmt.Println(`{"n":2}`)
		fmt.Print("{\"n\":3}\r\n")
		_, _ = bufio.NewReader(os.Stdin).ReadString(0)
	case "two": // two lines and out
		fmt.Println("a")
		fmt.Println("b")
	case "long": // an endless line
		buf := []byte(strings.Repeat("x", 1<<16))
		for {
			if _, err := os.Stdout.Write(buf); err != nil {
				os.Exit(0)
			}
		}
	case "fail":
		fmt.Fprintln(os.Stderr, "first")
		fmt.Fprintln(os.Stderr, "ssh: connect to host box port 22: Connection refused \x1b[31mred")
		os.Exit(255)
	case "missing":
		fmt.Fprintln(os.Stderr, "bash: line 1: aot-tui: command not found")
		os.Exit(127)
	case "cat", "cat-v2", "cat-badsha", "cat-big", "cat-garbage": // a far side's cat --follow (docs/stream.md)
		catHelper(mode)
	case "deaf": // one line, then ignores stdin and never ends
		fmt.Println("hello")
		time.Sleep(time.Hour)
	}
	os.Exit(0)
}

func helperArgv(t *testing.T, mode string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{"env", "AOT_REMOTE_HELPER=" + mode, exe}
}

func TestParseURL(t *testing.T) {
	ok := []struct {
		in     string
		target string
		dirs   []string
		port   bool
	}{
		{"ssh://box/~/code", "box", []string{"~/code"}, false},
		{"ssh://box", "box", []string{"~"}, false},
		{"ssh://me@box.example.com:2222/srv/loops/", "me@box.example.com", []string{"/srv/loops"}, true},
		{"ssh://[::1]/~/a/../b", "::1", []string{"~/b"}, false},
	}
	for _, c := range ok {
		h, err := ParseURL(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if h.Target != c.target || !reflect.DeepEqual(h.Dirs, c.dirs) || !h.ReadOnly {
			t.Errorf("%s: target %q dirs %q read-only %v", c.in, h.Target, h.Dirs, h.ReadOnly)
		}
		argv := h.Command("version")
		if hasPort := len(argv) > 2 && argv[1] == "-p" && argv[2] == "2222"; hasPort != c.port {
			t.Errorf("%s: argv %q", c.in, argv)
		}
	}
	for _, bad := range []string{
		"ssh://-oProxyCommand=touch%20x/dir", // an option as the host
		"ssh://u:secret@box/x",               // a password
		"http://box/x", "ssh:box", "ssh://box/x?y=1", "ssh://box:99999/x",
		"ssh://bo%0Ax/dir", // a newline in the host
	} {
		if _, err := ParseURL(bad); err == nil {
			t.Errorf("%s: accepted", bad)
		} else if strings.ContainsAny(err.Error(), "\n\x1b") {
			t.Errorf("%s: the error is not one safe line: %q", bad, err)
		}
	}
}

// Command builds argv with no shell on this side: ssh's arguments are
// quoted for the remote shell (a leading ~/ still expands there), a
// docker-style transport's are passed as they are.
func TestCommand(t *testing.T) {
	h := Host{Target: "me@box", Dirs: []string{"x"}}
	got := h.Command("status", "--scan", "~/my code", "$(touch /tmp/pwned)", "--json")
	want := []string{"ssh", "-o", "BatchMode=yes", "-o", "ControlMaster=auto", "-o", "ControlPersist=10m", "-o", "ServerAliveInterval=15",
		"me@box", "aot-tui", "status", "--scan", "~/'my code'", "'$(touch /tmp/pwned)'", "--json"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ssh argv\n got %q\nwant %q", got, want)
	}
	d := Host{Target: "ctr1", Transport: strings.Fields("docker exec -i HOST aot-tui …"), Dirs: []string{"/w"}}
	if got, want := d.Command("cat", "--follow", "/w/my loop.md"), []string{"docker", "exec", "-i", "ctr1", "aot-tui", "cat", "--follow", "/w/my loop.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("docker argv %q, want %q", got, want)
	}
	k := Host{Target: "pod", Transport: []string{"kubectl", "exec", "HOST", "--", "aot-tui"}, Dirs: []string{"/w"}}
	if got := k.Command("version", "--json"); got[len(got)-2] != "version" || got[len(got)-1] != "--json" {
		t.Errorf("kubectl argv %q: the arguments go at the end when the template has no …", got)
	}
}

// ShellQuote's output, run by a real POSIX shell, is the string again
// (a leading ~/ expanded to the home the shell has).
func TestShellQuoteThroughARealShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal("the test needs sh: ", err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []rune("abc XYZ019'\"\\$`!*?[]{}();&|<>~#=%@:,+-./\t\u00e9\u4e2d")
	cases := []string{"", "'", "''", "~", "~/", "~/a b", "-n", "a\\'b", "$HOME", "*"}
	for range 300 {
		n := rng.IntN(12)
		r := make([]rune, n)
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		cases = append(cases, string(r))
	}
	for _, s := range cases {
		out, err := exec.Command(sh, "-c", "printf '%s|' "+ShellQuote(s)).CombinedOutput()
		if err != nil {
			t.Fatalf("%q → %s: %v %s", s, ShellQuote(s), err, out)
		}
		got := strings.TrimSuffix(string(out), "|")
		if s == "~" || strings.HasPrefix(s, "~/") {
			if !strings.HasSuffix(got, strings.TrimPrefix(s, "~")) || strings.HasPrefix(got, "~") {
				t.Errorf("%q → %s → %q: the ~ did not expand", s, ShellQuote(s), got)
			}
			continue
		}
		if got != s {
			t.Errorf("%q → %s → %q", s, ShellQuote(s), got)
		}
	}
}

func TestLoad(t *testing.T) {
	good := `hosts:
  - name: gpu
    host: me@gpu.example.com
    dirs: [~/code, /srv/loops]
    depth: 3
  - name: builder
    transport: docker exec -i HOST aot-tui …
    dirs: [/work]
    read_only: true
  - name: pod
    transport: [kubectl, exec, "my pod", --, aot-tui]
    quote: none
    dirs: [/w]
`
	hosts, err := Load("remotes.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(hosts) != 3 || hosts[0].Target != "me@gpu.example.com" || hosts[0].Depth != 3 || hosts[0].ReadOnly ||
		hosts[1].Target != "builder" || !hosts[1].ReadOnly || hosts[2].Transport[2] != "my pod" || hosts[2].Quote != QuoteNone {
		t.Fatalf("hosts %+v", hosts)
	}
	for _, c := range []struct{ text, want string }{
		{"hosts:\n  - name: a\n    dirs: [x]\n    colour: red\n", "line 4"},
		{"hosts:\n  - name: a\n    dirs: [x]\n  - name: b\n    host: -oProxyCommand=evil\n    dirs: [x]\n", "line 4"},
		{"hosts:\n  - name: a\n    dirs: [x]\n  - name: a\n    dirs: [y]\n", "named twice"},
		{"hosts:\n  - name: a\n", "no directory"},
		{"hosts:\n  - name: a\n    dirs: [-oProxyCommand=x]\n", "may not begin with '-'"},
		{"hosts:\n  - name: a\n    dirs: [x]\n    quote: bash\n", "quote"},
		{"hosts:\n  - dirs: [x]\n", "without a name"},
		{"hosts: [\n", "remotes file remotes.yaml"},
	} {
		_, err := Load("remotes.yaml", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "remotes.yaml") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line naming the file and %q", c.text, err, c.want)
		}
	}
	if hosts, err := LoadFile(t.TempDir() + "/none.yaml"); err != nil || hosts != nil {
		t.Errorf("a missing file: %v %v", hosts, err)
	}
}

func TestRunReadsLinesAndEndsWhenStdinCloses(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var got []string
	err := Run(ctx, helperArgv(t, "lines"), RunOptions{}, func(line []byte) error {
		got = append(got, string(line))
		if len(got) == 3 {
			cancel() // closes its stdin: the helper then ends
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || strings.Join(got, " ") != `{"n":1} {"n":2} {"n":3}` {
		t.Fatalf("lines %q, err %v", got, err)
	}
}

func TestRunCutsOffAnEndlessLine(t *testing.T) {
	err := Run(context.Background(), helperArgv(t, "long"), RunOptions{MaxLine: 1 << 20}, func([]byte) error {
		t.Error("a line was handed over")
		return nil
	})
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("err %v, want ErrLineTooLong", err)
	}
}

func TestRunSaysWhyTheCommandFailed(t *testing.T) {
	err := Run(context.Background(), helperArgv(t, "fail"), RunOptions{}, func([]byte) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "Connection refused") || strings.ContainsAny(err.Error(), "\x1b\n") {
		t.Fatalf("err %q: want the last stderr line, escaped", err)
	}
	err = Run(context.Background(), helperArgv(t, "missing"), RunOptions{}, func([]byte) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "aot-tui is not found on the far side") {
		t.Fatalf("err %v", err)
	}
}

func TestRunKillsACommandThatIgnoresStdin(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, helperArgv(t, "deaf"), RunOptions{Grace: 200 * time.Millisecond}, func([]byte) error { cancel(); return nil })
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run never returned: the command was not killed")
	}
}

// statuses records a link's states in order.
type statuses struct {
	mu   sync.Mutex
	list []Status
	ch   chan Status
}

func newStatuses() *statuses { return &statuses{ch: make(chan Status, 100)} }

func (s *statuses) add(st Status) {
	s.mu.Lock()
	s.list = append(s.list, st)
	s.mu.Unlock()
	select {
	case s.ch <- st:
	default: // nobody waits any more (a link that keeps reconnecting): never block it
	}
}

func (s *statuses) waitFor(t *testing.T, want State) Status {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case st := <-s.ch:
			if st.State == want {
				return st
			}
		case <-deadline:
			t.Fatalf("the link never became %s; states %+v", want, s.list)
		}
	}
}

// A link starts the command again after it ends, telling each new start
// (OnConnect) and its states: connecting, live, lost (why, and when it is
// tried again), connecting again.
func TestLinkReconnects(t *testing.T) {
	st := newStatuses()
	var mu sync.Mutex
	connects, lines := 0, 0
	l := StartLink(LinkOptions{Argv: helperArgv(t, "two"), MinBackoff: 10 * time.Millisecond, MaxBackoff: 40 * time.Millisecond,
		OnConnect: func() { mu.Lock(); connects++; mu.Unlock() },
		OnLine:    func([]byte) error { mu.Lock(); lines++; mu.Unlock(); return nil },
		OnStatus:  st.add})
	defer l.Stop()
	st.waitFor(t, Live)
	lost := st.waitFor(t, Lost)
	if lost.Reason != "the stream ended" || !lost.Retry.After(lost.Since) {
		t.Errorf("lost %+v", lost)
	}
	st.waitFor(t, Live)
	// Live again: the second start's lines come as it reads them.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		c, n := connects, lines
		mu.Unlock()
		if c >= 2 && n >= 3 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("connects %d lines %d", c, n)
		}
	}
}

func TestLinkGoesStaleAndStops(t *testing.T) {
	st := newStatuses()
	l := StartLink(LinkOptions{Argv: helperArgv(t, "deaf"), StaleAfter: 50 * time.Millisecond, Run: RunOptions{Grace: 100 * time.Millisecond}, OnStatus: st.add})
	live := st.waitFor(t, Live)
	stale := st.waitFor(t, Stale)
	if stale.Since.Before(live.Since) {
		t.Errorf("stale since %v, before it was live %v", stale.Since, live.Since)
	}
	done := make(chan struct{})
	go func() { l.Stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Stop did not end the link")
	}
}

func TestLinkMismatch(t *testing.T) {
	st := newStatuses()
	l := StartLink(LinkOptions{Argv: helperArgv(t, "lines"), MaxBackoff: time.Hour, OnStatus: st.add,
		OnLine: func([]byte) error {
			return fmt.Errorf("%w: the far side streams version 9, this aot-tui reads 1", ErrMismatch)
		}})
	defer l.Stop()
	m := st.waitFor(t, Mismatch)
	if !strings.Contains(m.Reason, "version 9") || m.Retry.Sub(m.Since) < time.Hour {
		t.Errorf("mismatch %+v", m)
	}
}

func TestLinkSaysAFailure(t *testing.T) {
	st := newStatuses()
	l := StartLink(LinkOptions{Argv: helperArgv(t, "fail"), MinBackoff: time.Hour, OnStatus: st.add})
	defer l.Stop()
	if lost := st.waitFor(t, Lost); !strings.Contains(lost.Reason, "Connection refused") {
		t.Errorf("lost %+v", lost)
	}
}

// Output returns what a command printed, line by line, and refuses an
// answer over its bound, in all or in one line without a break.
func TestOutputIsBounded(t *testing.T) {
	ctx := context.Background()
	out, err := Output(ctx, []string{"sh", "-c", `printf 'one\r\ntwo\n\nthree'`}, 64)
	if err != nil || string(out) != "one\ntwo\nthree\n" {
		t.Fatalf("Output = %q, %v", out, err)
	}
	// Exactly at the bound is whole; one byte over is refused.
	if out, err := Output(ctx, []string{"sh", "-c", `printf '1234567\n'`}, 8); err != nil || string(out) != "1234567\n" {
		t.Fatalf("at the bound: %q, %v", out, err)
	}
	for _, script := range []string{`printf '12345678\n'`, `printf 'abc\ndefgh\n'`, `head -c 100000 /dev/zero`} {
		out, err := Output(ctx, []string{"sh", "-c", script}, 8)
		if err == nil || !strings.Contains(err.Error(), "cut off") || !strings.Contains(err.Error(), "8 bytes") || len(out) > 8 {
			t.Errorf("%s: Output = %q, %v; want refused, at most 8 bytes kept", script, out, err)
		}
	}
}
