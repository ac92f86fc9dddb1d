package main

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// control is a tmux control-mode client (tmux -C) attached to the session.
// Capturing the pane through it is a round trip on a pipe, where running
// `tmux capture-pane` forks a client process for every look: on a small
// machine that fork took several milliseconds and competed with the TUI for
// the CPU, which inflated the latency being measured.
//
// With notify, tmux also tells this client each time the pane gets output
// (its %output notifications), and waitOutput waits for the next one: the
// latency loop then looks at the pane once per output of the TUI instead of
// asking again and again. That asking — a capture of the 160×50 pane every
// few hundred microseconds, by tmux and this process together — took a
// core's worth of CPU from the machine while the TUI worked, and under one
// busy core it was most of what the TUI would have had.
type control struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	blocks chan string
	// outputs gets a value (coalesced) after each %output notification
	// (nil without notify).
	outputs chan struct{}
}

func (s *session) control(notify bool) *control {
	// no-output: tmux does not stream the pane's output to this client, so
	// the pipe carries only the replies to our commands; with notify it
	// does, and read turns each %output line into a wake-up.
	flags := "no-output,ignore-size"
	if notify {
		flags = "ignore-size"
	}
	cmd := exec.Command("tmux", "-L", s.Socket, "-C", "attach-session", "-t", "p", "-f", flags)
	in, err := cmd.StdinPipe()
	if err != nil {
		fail(err.Error())
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fail(err.Error())
	}
	if err := cmd.Start(); err != nil {
		fail("perf: tmux -C: " + err.Error())
	}
	c := &control{cmd: cmd, in: in, blocks: make(chan string, 1)}
	if notify {
		c.outputs = make(chan struct{}, 1)
	}
	go c.read(out)
	return c
}

// read splits tmux's replies into the text between %begin and %end (or
// %error) lines and sends each block on c.blocks. Only blocks whose flags
// field is 1 answer commands this client sent; the attach itself gets a
// block with flags 0, which is skipped.
func (c *control) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var b strings.Builder
	in := false
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "%begin "):
			f := strings.Fields(l)
			in = len(f) == 4 && f[3] == "1"
			b.Reset()
		case in && (strings.HasPrefix(l, "%end ") || strings.HasPrefix(l, "%error ")):
			in = false
			c.blocks <- b.String()
		case in:
			b.WriteString(l)
			b.WriteByte('\n')
		case c.outputs != nil && strings.HasPrefix(l, "%output "):
			select {
			case c.outputs <- struct{}{}:
			default: // one is waiting already
			}
		}
	}
	close(c.blocks)
}

// run sends one tmux command and returns its reply.
func (c *control) run(command string) string {
	if _, err := fmt.Fprintln(c.in, command); err != nil {
		fail("perf: tmux -C: " + err.Error())
	}
	out, ok := <-c.blocks
	if !ok {
		fail("perf: the tmux control client went away")
	}
	return out
}

func (c *control) capture() string { return c.run("capture-pane -p -t p") }

// forgetOutput drops an output notification not yet waited for.
func (c *control) forgetOutput() {
	select {
	case <-c.outputs:
	default:
	}
}

// waitOutput waits until the pane gets output after the last capture (an
// output before it may also wake it: the caller looks again) or until d
// passed; without notify it returns at once.
func (c *control) waitOutput(d time.Duration) {
	if c.outputs == nil {
		return
	}
	select {
	case <-c.outputs:
	case <-time.After(d):
	}
}

func (c *control) close() {
	c.in.Close()
	_ = c.cmd.Wait()
}
