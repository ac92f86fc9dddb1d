//go:build unix

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/internal/testenv"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/remote"
	"github.com/aot-loop/aot-tui/statefile"
)

// hostView collects what a remote host's fleet says.
type hostView struct {
	mu     sync.Mutex
	rows   []fleet.Row
	status remote.Status
}

func (v *hostView) changed(hf *fleet.HostFleet) {
	rows, st := hf.Rows(), hf.Status()
	v.mu.Lock()
	v.rows, v.status = rows, st
	v.mu.Unlock()
}

func (v *hostView) wait(t *testing.T, what string, ok func([]fleet.Row, remote.Status) bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		v.mu.Lock()
		rows, st := slices.Clone(v.rows), v.status
		v.mu.Unlock()
		if ok(rows, st) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("never %s: rows %+v, status %+v", what, rows, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func rowNamed(rows []fleet.Row, name string) (fleet.Row, bool) {
	for _, r := range rows {
		if r.Name == name {
			return r, true
		}
	}
	return fleet.Row{}, false
}

// The built binary on both sides of a real ssh to a real sshd: a remote
// host's fleet follows a loop's writes, a loop started and one removed
// there, goes lost when the server is killed and live again when it is
// back; a remote file streams its versions; and a correction previewed
// here on the streamed bytes lands there exactly as previewed, or is
// refused when the loop wrote in between.
func TestRemoteHostOverRealSSH(t *testing.T) {
	bin := binary(t)
	s := testenv.StartSSHD(t)
	root := t.TempDir()
	api := remoteLoop(t, root, "api")
	remoteLoop(t, root, "web")
	h := &remote.Host{Name: "box", Target: s.Host, Dirs: []string{root},
		Transport: []string{"ssh", "-F", s.Config, "-o", "ServerAliveInterval=1", "-o", "ServerAliveCountMax=2", "HOST", bin, "…"}}

	var v hostView
	hf := fleet.FollowHost(h, fleet.HostOptions{Heartbeat: time.Second,
		Link: remote.LinkOptions{MinBackoff: 100 * time.Millisecond, MaxBackoff: 500 * time.Millisecond}}, v.changed)
	defer hf.Stop()
	v.wait(t, "two live rows of box", func(rows []fleet.Row, st remote.Status) bool {
		r, ok := rowNamed(rows, "api")
		return st.State == remote.Live && len(rows) == 2 && ok && r.Host == "box" && r.Iteration == 7
	})

	// The loop writes (in place, as its scripts do).
	rewrite(t, api, "iteration: 7", "iteration: 8")
	v.wait(t, "api at iteration 8", func(rows []fleet.Row, _ remote.Status) bool {
		r, ok := rowNamed(rows, "api")
		return ok && r.Iteration == 8
	})
	// A loop started there, one removed.
	remoteLoop(t, root, "new")
	if err := os.RemoveAll(filepath.Join(root, "web")); err != nil {
		t.Fatal(err)
	}
	v.wait(t, "new in, web out", func(rows []fleet.Row, _ remote.Status) bool {
		_, hasNew := rowNamed(rows, "new")
		_, hasWeb := rowNamed(rows, "web")
		return hasNew && !hasWeb
	})

	// The machine goes down: lost, with the rows it had; back: live.
	s.Stop()
	v.wait(t, "box lost or stale", func(rows []fleet.Row, st remote.Status) bool {
		return (st.State == remote.Lost || st.State == remote.Stale) && len(rows) == 2
	})
	s.Start()
	v.wait(t, "box live again", func(rows []fleet.Row, st remote.Status) bool {
		return st.State == remote.Live && len(rows) == 2
	})

	// One remote file, streamed: its versions parsed here.
	events := make(chan statefile.Event, 100)
	fl := remote.FollowFile(h, statefile.Target{Path: api, Kind: statefile.KindAoT}, remote.FileOptions{}, func(ev statefile.Event) { events <- ev })
	defer fl.Stop()
	first := nextLoaded(t, events)
	if first.Doc.State.Control.Iteration != 8 {
		t.Fatalf("streamed version at iteration %d, want 8", first.Doc.State.Control.Iteration)
	}

	// A correction previewed here, on the streamed bytes, and applied
	// there with the version previewed.
	preview := filepath.Join(t.TempDir(), ".claude", "aot-loop-state.md")
	if err := os.MkdirAll(filepath.Dir(preview), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(preview, first.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	stamp := "2026-11-27T21:00:00Z"
	req := []string{"redirect", "constraints", "--max-iterations", "30", "--json", "--timestamp", stamp}
	code, out, errOut := runBin(t, bin, append(req, "-f", preview, "--dry-run")...)
	if code != 0 {
		t.Fatalf("preview: exit %d %s %s", code, out, errOut)
	}
	var planned struct {
		Before string `json:"before_sha256"`
		After  string `json:"after_sha256"`
	}
	if err := json.Unmarshal([]byte(out), &planned); err != nil || planned.After == "" {
		t.Fatalf("preview output %s: %v", out, err)
	}
	sum := sha256.Sum256(first.Data)
	version := hex.EncodeToString(sum[:])
	if planned.Before != version {
		t.Fatalf("the preview planned on %s, the stream sent %s", planned.Before, version)
	}
	apply := h.Command(append(req, "-f", api, "--expect-sha256", version)...)
	if code, out, errOut := runCmd(t, exec.Command(apply[0], apply[1:]...)); code != 0 {
		t.Fatalf("remote apply: exit %d %s %s", code, out, errOut)
	}
	written, err := os.ReadFile(api)
	if err != nil {
		t.Fatal(err)
	}
	if got := sha256.Sum256(written); hex.EncodeToString(got[:]) != planned.After {
		t.Fatalf("the remote file is not the preview's bytes:\n%s", written)
	}

	// The loop writes between preview and apply: refused, nothing written.
	after := sha256.Sum256(written)
	rewrite(t, api, "iteration: 8", "iteration: 9")
	stale := h.Command(append(req, "-f", api, "--expect-sha256", hex.EncodeToString(after[:]))...)
	code, out, _ = runCmd(t, exec.Command(stale[0], stale[1:]...))
	if code != 4 || !strings.Contains(out, `"kind": "stale"`) {
		t.Fatalf("an apply on a version written since: exit %d %s", code, out)
	}
	if now, _ := os.ReadFile(api); strings.Count(string(now), "corrections") != strings.Count(string(written), "corrections") || !strings.Contains(string(now), "iteration: 9") {
		t.Fatalf("the refused apply wrote:\n%s", now)
	}

	sessionOverSSH(t, h, api)
}

// sessionOverSSH is what the TUI does with a remote loop's corrections
// (remote.FarFile as the session's correction.Elsewhere, fed by
// FollowFile): the pause taken there while a form is open, a correction
// previewed here on the streamed bytes written there exactly, one the
// loop's write overtook planned again and then written, an undo there,
// and the pause let go.
func sessionOverSSH(t *testing.T, h *remote.Host, path string) {
	far := remote.NewFarFile(h)
	seen := make(chan []byte, 100)
	fl := remote.FollowFile(h, statefile.Target{Path: path, Kind: statefile.KindAoT}, remote.FileOptions{}, func(ev statefile.Event) {
		far.Note(ev)
		if ev.Kind == statefile.EventLoaded {
			seen <- ev.Data
		}
	})
	defer fl.Stop()
	streamed := func(want []byte) {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case data := <-seen:
				if bytes.Equal(data, want) {
					return
				}
			case <-deadline:
				t.Fatal("the version was not streamed back")
			}
		}
	}
	current, _ := os.ReadFile(path)
	streamed(current)
	s := correction.NewSession(path, correction.Options{Elsewhere: far})
	defer s.Close()
	flagOn := func() bool {
		doc, err := statefile.Load(path, 0)
		if err != nil {
			t.Fatal(err)
		}
		return doc.State.Control.RedirectRequested
	}
	if flagOn() {
		rewrite(t, path, "redirect_requested: true", "redirect_requested: false")
	}
	if r := s.BeginFor("constraints")().(correction.FlagResult); r.Err != nil || !r.Wrote || !flagOn() {
		t.Fatalf("pause over ssh: %+v", r)
	}
	pr := s.Preview(model.ChangeConstraints{MaxIterations: ptr(44)}, "over ssh")().(correction.PreviewResult)
	if pr.Err != nil {
		t.Fatal(pr.Err)
	}
	// The loop writes first: nothing written, planned again on its bytes.
	rewrite(t, path, "iteration: 9", "iteration: 10")
	ar := s.Apply(pr.Preview)().(correction.ApplyResult)
	if ar.Err != nil || ar.Replanned == nil || !bytes.Contains(ar.Replanned.Base, []byte("iteration: 10")) {
		t.Fatalf("apply after a loop write: %v, replanned %v", ar.Err, ar.Replanned != nil)
	}
	ar = s.Apply(ar.Replanned)().(correction.ApplyResult)
	if ar.Err != nil || ar.Replanned != nil {
		t.Fatalf("apply: %v", ar.Err)
	}
	want := ar.Plan
	got, _ := os.ReadFile(path)
	if want == nil || !bytes.Contains(got, []byte("max_iterations: 44")) {
		t.Fatalf("not written there:\n%s", got)
	}
	if ar.Follow == nil {
		t.Fatal("the pause is not let go after the write")
	}
	if r := ar.Follow().(correction.FlagResult); r.Err != nil || flagOn() {
		t.Fatalf("the pause after the write: %+v, flag %v", r, flagOn())
	}
	streamed(mustReadBytes(t, path))
	up := s.PreviewUndo(ar.ID, "")().(correction.PreviewResult)
	if up.Err != nil {
		t.Fatal(up.Err)
	}
	ur := s.Apply(up.Preview)().(correction.ApplyResult)
	if ur.Err != nil || ur.Replanned != nil {
		t.Fatalf("undo over ssh: %v", ur.Err)
	}
	if got := mustReadBytes(t, path); !bytes.Equal(got, up.Preview.After) {
		t.Fatalf("the undo there is not its preview:\n%s", statefile.UnifiedDiff("", up.Preview.After, got))
	}
}

// The same fleet through a docker-style transport: a plain command
// template, no ssh, no shell.
func TestRemoteHostThroughAPlainCommand(t *testing.T) {
	bin := binary(t)
	root := t.TempDir()
	remoteLoop(t, root, "my loop")
	h := &remote.Host{Name: "ctr", Target: "ctr", Dirs: []string{root}, Transport: []string{"env", "HOST_IS=HOST", bin, "…"}}
	var v hostView
	hf := fleet.FollowHost(h, fleet.HostOptions{Heartbeat: time.Second}, v.changed)
	defer hf.Stop()
	v.wait(t, "the loop of ctr", func(rows []fleet.Row, st remote.Status) bool {
		r, ok := rowNamed(rows, "my loop")
		return st.State == remote.Live && ok && r.Host == "ctr"
	})
}

func nextLoaded(t *testing.T, events chan statefile.Event) statefile.Event {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Kind == statefile.EventLoaded {
				return ev
			}
		case <-deadline:
			t.Fatal("no version streamed")
		}
	}
}
