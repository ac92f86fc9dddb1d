package remote

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// DefaultMaxLine bounds one line of a stream: a version of a state file
// (64 MiB at most) in base64 with its frame.
const DefaultMaxLine = 96 << 20

// ErrLineTooLong is a stream that sent a line over its bound: it is cut
// off there (the line is never held whole).
var ErrLineTooLong = errors.New("sent a line over the limit: cut off")

// RunOptions say how Run runs a stream's command.
type RunOptions struct {
	// MaxLine bounds a line (default DefaultMaxLine).
	MaxLine int
	// Grace is how long the command has to end after its stdin is closed
	// (ctx ended), before it is killed (default 3 s).
	Grace time.Duration
}

// Run runs argv (no shell), hands each line it writes to onLine, and
// returns when the command ends, onLine returns an error, or ctx ends.
// The command's stdin stays open while it runs: closing it (when ctx
// ends) is how aot-tui on the far side, and ssh, are told to stop; one
// that does not is killed after Grace. The error of a command that
// failed says why in one line, from the end of what it wrote to stderr.
func Run(ctx context.Context, argv []string, o RunOptions, onLine func([]byte) error) error {
	if len(argv) == 0 {
		return errors.New("no command")
	}
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	if o.Grace <= 0 {
		o.Grace = 3 * time.Second
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr tail
	cmd.Stderr = &stderr
	cmd.Cancel = func() error { return stdin.Close() }
	cmd.WaitDelay = o.Grace
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", clean(argv[0]), err)
	}
	readErr := readLines(stdout, o.MaxLine, onLine)
	if readErr != nil {
		cancel()
		// Drain what is left so the command is not blocked writing
		// while it is told to stop.
		go func() { _, _ = io.Copy(io.Discard, stdout) }()
	}
	waitErr := cmd.Wait()
	switch {
	case readErr != nil:
		return readErr
	case ctx.Err() != nil:
		return ctx.Err()
	case waitErr != nil:
		return exitError(argv, waitErr, stderr.String())
	}
	return nil
}

// readLines hands each line of r to onLine, without its newline; a line
// over max is an ErrLineTooLong, read no further.
func readLines(r io.Reader, max int, onLine func([]byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(chunk) > max {
				return fmt.Errorf("%w (%d bytes)", ErrLineTooLong, max)
			}
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if long != nil {
			if len(long)+len(chunk) > max+1 {
				return fmt.Errorf("%w (%d bytes)", ErrLineTooLong, max)
			}
			line = append(long, chunk...)
			long = nil
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) > 0 {
			if len(line) > max {
				return fmt.Errorf("%w (%d bytes)", ErrLineTooLong, max)
			}
			if e := onLine(line); e != nil {
				return e
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, os.ErrClosed) {
				// The end, or the pipe closed by Run's grace period.
				return nil
			}
			return err
		}
	}
}

// Output runs argv (Run) and returns the lines it printed, as Run reads
// them (empty lines and a line's CR dropped), each ending in a line
// break, at most limit bytes in all: a longer answer, or one line longer
// than that, is an error. What was read before is returned with the
// error. It serves JSON answers, which lose nothing by it.
func Output(ctx context.Context, argv []string, limit int) ([]byte, error) {
	var buf bytes.Buffer
	// (A line is bounded too: garbage with no newline is cut off at the
	// answer's bound, not read to DefaultMaxLine first.)
	err := Run(ctx, argv, RunOptions{MaxLine: limit}, func(line []byte) error {
		if buf.Len()+len(line)+1 > limit {
			return fmt.Errorf("sent over %d bytes: cut off", limit)
		}
		buf.Write(line)
		buf.WriteByte('\n')
		return nil
	})
	return buf.Bytes(), err
}

// exitError says in one line why the command failed: the last line it
// wrote to stderr, and what to do when aot-tui is missing there.
func exitError(argv []string, err error, stderr string) error {
	last := ""
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			last = l
		}
	}
	var ee *exec.ExitError
	code := -1
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	if code == 127 || strings.Contains(last, "command not found") || strings.Contains(last, "executable file not found") {
		return fmt.Errorf("aot-tui is not found on the far side (%s): install it there (go install github.com/aot-loop/aot-tui/cmd/aot-tui@latest) or name its path in the transport", clean(last))
	}
	if last == "" {
		return fmt.Errorf("%s: %v", clean(argv[0]), err)
	}
	return fmt.Errorf("%s: %s", clean(argv[0]), clean(last))
}

// tail keeps the last 4 KiB written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 4<<10 {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-(4<<10):]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
