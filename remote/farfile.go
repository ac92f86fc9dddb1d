package remote

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aot-loop/aot-tui/statefile"
)

// FarFile is a loop's state file on a host as a correction session of
// this machine sees it (correction.Elsewhere): the last version streamed
// from the host (Note, fed with FollowFile's events), and the host's
// aot-tui run through its transport to write there.
type FarFile struct {
	h *Host

	mu     sync.Mutex
	latest []byte
	next   chan struct{} // closed by the next Note
}

// NewFarFile is the file of h that a session writes through h's
// transport; feed it the versions FollowFile streams (Note).
func NewFarFile(h *Host) *FarFile { return &FarFile{h: h, next: make(chan struct{})} }

// maxAnswer bounds what a command run on the host may print back (a
// correction's --json is a few KB).
const maxAnswer = 4 << 20

func (f *FarFile) Name() string { return f.h.Name }

func (f *FarFile) Latest() ([]byte, <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.latest, f.next
}

// Note keeps the version ev brings (a version that parses; a file gone
// or in error has none to plan on).
func (f *FarFile) Note(ev statefile.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	close(f.next)
	f.next = make(chan struct{})
	switch ev.Kind {
	case statefile.EventLoaded:
		f.latest = ev.Data
	default:
		f.latest = nil
	}
}

func (f *FarFile) Run(ctx context.Context, args []string) ([]byte, error) {
	return Output(ctx, f.h.Command(args...), maxAnswer)
}

func (f *FarFile) Hold(args []string, onLine func([]byte), ended func(error)) (func(context.Context) error, error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		err := Run(ctx, f.h.Command(args...), RunOptions{}, func(line []byte) error {
			onLine(line)
			return nil
		})
		if errors.Is(err, context.Canceled) {
			err = nil
		}
		ended(err)
		done <- err
	}()
	return func(wait context.Context) error {
		// Closing its stdin (Run's cancel) is how it is told to let go;
		// it says so in a line before it ends.
		cancel()
		select {
		case err := <-done:
			return err
		case <-wait.Done():
			return fmt.Errorf("no end in time: %w", wait.Err())
		}
	}, nil
}
