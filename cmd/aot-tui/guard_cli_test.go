package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/sim/gen"
)

// redirect … --guard, then the file replaced by a new loop (cp of a fresh
// state, as /align-goal writes one) while the guard runs: the correction
// is not carried over to the new loop, and the command says so and exits
// 3 — the correction is not in effect. It used to write max_iterations 99
// into the new loop ("re-applied after the loop overwrote it") and exit 0.
func TestGuardDoesNotCarryACorrectionOverToANewLoop(t *testing.T) {
	bin := os.Getenv("AOT_TUI_E2E_BIN")
	if bin == "" {
		bin = binary(t)
	}
	path := loopFixture(t)
	fresh := gen.Generate(gen.Options{Atoms: 12, Seed: 42, Resolved: 0.2})
	cmd := exec.Command(bin, "redirect", "constraints", "--max-iterations", "99", "--guard", "5s", "--json", "-f", path)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !bytes.Contains(guardFileBytes(path), []byte("max_iterations: 99")) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the correction was never written")
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := os.WriteFile(path, fresh, 0o644); err != nil { // cp over it
		t.Fatal(err)
	}
	err := cmd.Wait()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, fresh) {
		t.Fatalf("the new loop got the old correction (exit %d, %s):\n%s", code, strings.TrimSpace(errb.String()), now)
	}
	msg := strings.TrimSpace(errb.String())
	if code != exitConflict || !strings.Contains(msg, `the file was replaced by a new loop: the correction "max_iterations 20 → 99" was not carried over`) ||
		strings.Count(msg, "\n") != 0 {
		t.Fatalf("exit %d, stderr %q: want exit 3 and one line saying the correction was not carried over", code, msg)
	}
	var res struct {
		Written        bool `json:"written"`
		NotCarriedOver *struct {
			Kind, Message string
		} `json:"not_carried_over"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || !res.Written || res.NotCarriedOver == nil || res.NotCarriedOver.Kind != "new_loop" {
		t.Fatalf("--json: %v %s", err, out.String())
	}
}

// guardFileBytes is what path holds (nil when it cannot be read).
func guardFileBytes(path string) []byte {
	b, _ := os.ReadFile(path)
	return b
}
