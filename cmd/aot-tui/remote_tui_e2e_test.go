package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The fleet table with a remote host (remotes.yaml, a docker-style plain
// command transport running the built binary): the host column, its
// loops beside the local one, a remote loop opened in the normal views
// following the remote file's writes, and a correction typed in a form
// written there as previewed; a host that cannot be reached is named in
// the title.
func TestE2EFleetWithARemoteHost(t *testing.T) {
	bin, _, web, near, cfg := remoteFleet(t)
	s := startTmux(t, 160, 30, []string{"NO_COLOR=1", "XDG_CONFIG_HOME=" + cfg}, bin, "--scan", near)
	s.waitFor("host", "box", "web", "local", "cli", "down lost")
	// The remote loop, opened: box's web (the table's first row is a
	// paused loop: box's api is not there, web and cli are both paused).
	s.send("/", "w", "e", "b", "Enter", "Enter")
	s.waitFor("box:web", "iteration 7/20")
	// Its redirect_requested (the fixture's) is offered to be cleared,
	// and is, there.
	s.waitFor("redirect_requested is set")
	s.send("y")
	waitFile(t, web, "redirect_requested: false")
	rewrite(t, web, "iteration: 7", "iteration: 8")
	s.waitFor("iteration 8/20")
	// A correction, typed here and written there: the form pauses the
	// loop there, the preview is planned on the streamed bytes, and apply
	// writes exactly them there and lets the pause go.
	s.send("c")
	s.waitFor("Change constraints", "max_iterations")
	waitFile(t, web, "redirect_requested: true")
	s.send("C-u", "3", "0", "Enter", "Enter", "Enter", "Enter")
	s.waitFor("preview: Change constraints", "max_iterations 20 → 30", "then the pause on box ends", "--- box:/")
	s.send("Enter")
	s.waitFor("max_iterations 20 → 30 — recorded in corrections", "iteration 8/30")
	waitFile(t, web, "max_iterations: 30", "redirect_requested: false")
	// Editing a file there is not E's to do.
	s.send("E")
	s.waitFor("the loop is on box")
}

// waitFile waits for path to hold every one of want.
func waitFile(t *testing.T, path string, want ...string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, _ := os.ReadFile(path)
		missing := ""
		for _, w := range want {
			if !strings.Contains(string(data), w) {
				missing = w
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never held %q:\n%s", path, missing, data)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// remoteFleet is a fleet of two machines on this one: a loop "cli" under
// near, and remotes.yaml (in cfg, the config directory) naming host "box",
// whose transport is the built binary itself (docker-style, no ssh), with
// the loop "web" (its state file's path) under far, and a host "down"
// whose aot-tui is not there.
func remoteFleet(t *testing.T) (bin, tmp, web, near, cfg string) {
	t.Helper()
	bin = binary(t)
	tmp = t.TempDir()
	far, near, cfg := filepath.Join(tmp, "far"), filepath.Join(tmp, "near"), filepath.Join(tmp, "cfg")
	web = remoteLoop(t, far, "web")
	remoteLoop(t, near, "cli")
	writeRemotes(t, cfg, "hosts:\n  - name: box\n    transport: ["+bin+", …]\n    dirs: ["+far+"]\n"+
		"  - name: down\n    transport: ["+filepath.Join(tmp, "no-such-aot-tui")+", …]\n    dirs: [/x]\n")
	return bin, tmp, web, near, cfg
}

// writeRemotes writes remotes.yaml into the config directory cfg.
func writeRemotes(t *testing.T, cfg, yaml string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(cfg, "aot-tui"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "aot-tui", "remotes.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
}

// remoteLoop writes a loop (testdata/rich.md, at iteration 7) under dir/name.
func remoteLoop(t testing.TB, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "rich.md"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name, ".claude", "aot-loop-state.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func rewrite(t testing.TB, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s has no %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// status --scan reads the remote hosts once too: their rows marked with
// the host, in one order with the local ones, and a host it could not
// read named with why.
func TestStatusScanReadsRemoteHosts(t *testing.T) {
	bin, tmp, _, near, cfg := remoteFleet(t)
	cmd := exec.Command(bin, "status", "--scan", "--json", "--no-activity", near)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cfg)
	code, out, errOut := runCmd(t, cmd)
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	var got fleetJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	hosts := map[string]string{}
	for _, r := range got.Loops {
		hosts[r.Name] = r.Host
	}
	if len(got.Loops) != 2 || hosts["web"] != "box" || hosts["cli"] != "" || got.Summary.Loops != 2 {
		t.Fatalf("loops %+v", got.Loops)
	}
	if len(got.Hosts) != 2 || got.Hosts[0].Loops != 1 || got.Hosts[1].Error == "" {
		t.Fatalf("hosts %+v", got.Hosts)
	}
	cmd = exec.Command(bin, "status", "--scan", "--no-activity", near)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cfg)
	if _, text, _ := runCmd(t, cmd); !strings.Contains(text, "box:web") || !strings.Contains(text, "host down: ") || strings.Count(text, "down") != 1 {
		t.Fatalf("the text form:\n%s", text)
	}
	// --no-remotes leaves them out.
	cmd = exec.Command(bin, "status", "--scan", "--json", "--no-activity", "--no-remotes", near)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cfg)
	if _, out, _ := runCmd(t, cmd); strings.Contains(out, `"host"`) {
		t.Fatalf("--no-remotes read the hosts:\n%s", out)
	}
	// A host that never answers holds the local rows up for
	// --host-timeout only, and is named with that reason.
	slow := filepath.Join(tmp, "slow")
	writeRemotes(t, slow, "hosts:\n  - name: mute\n    transport: [sh, -c, 'exec sleep 600', x, …]\n    dirs: [/x]\n")
	cmd = exec.Command(bin, "status", "--scan", "--json", "--no-activity", "--host-timeout", "200ms", near)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+slow)
	code, out, errOut = runCmd(t, cmd)
	got = fleetJSON{}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	if len(got.Loops) != 1 || len(got.Hosts) != 1 || got.Hosts[0].Name != "mute" || !strings.HasPrefix(got.Hosts[0].Error, "no answer in 200ms") {
		t.Fatalf("loops %+v hosts %+v", got.Loops, got.Hosts)
	}
}
