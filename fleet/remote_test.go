package fleet

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/remote"
)

// farSide plays a host's fleet stream (docs/stream.md): a snapshot of two
// loops, a heartbeat, one loop's row changing, a new loop, one removed, a
// kind of a later release; "v9" speaks another version.
func farSide(mode string) {
	out := bufio.NewWriter(os.Stdout)
	send := func(s string) { out.WriteString(s + "\n"); out.Flush() }
	row := func(name, status string, iter int, att string) string {
		return fmt.Sprintf(`{"path":"/far/%s/.claude/aot-loop-state.md","project":"/far/%s","name":%q,"kind":"aot-loop","file":"ok","status":%q,"iteration":%d,"attention":%q,"changed":"2026-11-27T20:00:00Z"}`,
			name, name, name, status, iter, att)
	}
	switch mode {
	case "v9":
		send(`{"v":9,"kind":"snapshot"}`)
	case "garbage":
		send("Welcome \x1b]0;pwned\x07 to box")
	default:
		send(`{"v":1,"kind":"snapshot","dirs":["/far"],"depth":4,"summary":{},"loops":[` + row("api", "running", 3, "") + `,` + row("web", "running", 9, "near_limit") + `],"watch":{}}`)
		send(`{"v":1,"kind":"heartbeat","time":"2026-11-27T20:00:01Z"}`)
		send(`{"v":1,"kind":"row","row":` + row("api", "running", 4, "") + `}`)
		send(`{"v":1,"kind":"row","row":` + row("new", "pending", 0, "a-class-of-a-later-release") + `}`)
		send(`{"v":1,"kind":"removed","path":"/far/web/.claude/aot-loop-state.md","project":"/far/web","name":"web"}`)
		send(`{"v":1,"kind":"teleport"}`)
	}
	_, _ = bufio.NewReader(os.Stdin).ReadString(0)
	os.Exit(0)
}

func farHost(t *testing.T, mode string) *remote.Host {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The far side ignores the arguments FollowHost adds.
	return &remote.Host{Name: "box", Target: "box", Dirs: []string{"/far"}, Transport: []string{"env", "AOT_FLEET_FAR_SIDE=" + mode, exe}}
}

// A host's stream becomes its rows, each marked with the host: the
// snapshot, a row changed, a loop added, one removed; heartbeats and
// kinds it does not know change nothing, and an attention class it does
// not know reads as needing a person.
func TestFollowHostKeepsTheHostsRows(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	hf := FollowHost(farHost(t, "rows"), HostOptions{}, func(hf *HostFleet) {
		var names []string
		for _, r := range hf.Rows() {
			names = append(names, fmt.Sprintf("%s@%s:%d", r.Name, r.Host, r.Iteration))
		}
		mu.Lock()
		seen = append(seen, strings.Join(names, " "))
		mu.Unlock()
	})
	defer hf.Stop()
	want := "api@box:4 new@box:0"
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		last := ""
		if len(seen) > 0 {
			last = seen[len(seen)-1]
		}
		mu.Unlock()
		if last == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rows %q, want %q at the end", seen, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if hf.Status().State != remote.Live {
		t.Errorf("status %+v", hf.Status())
	}
	for _, r := range hf.Rows() {
		if r.Name == "new" && r.Attention != AttentionInvalid {
			t.Errorf("an unknown attention class read as %v", r.Attention)
		}
	}
	b, err := json.Marshal(hf.Rows()[0])
	if err != nil || !strings.Contains(string(b), `"host":"box"`) {
		t.Errorf("a remote row's JSON %s %v", b, err)
	}
}

func TestFollowHostVersionMismatch(t *testing.T) {
	got := make(chan remote.Status, 10)
	hf := FollowHost(farHost(t, "v9"), HostOptions{}, func(hf *HostFleet) { got <- hf.Status() })
	defer hf.Stop()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case s := <-got:
			if s.State == remote.Mismatch {
				if !strings.Contains(s.Reason, "version 9") {
					t.Errorf("reason %q", s.Reason)
				}
				return
			}
		case <-deadline:
			t.Fatal("never a version mismatch")
		}
	}
}

// A far side that is not aot-tui (a login banner, a shell's noise) makes
// the host lost with a reason that says so, its bytes shown escaped.
func TestFollowHostGarbage(t *testing.T) {
	got := make(chan remote.Status, 10)
	hf := FollowHost(farHost(t, "garbage"), HostOptions{Link: remote.LinkOptions{MinBackoff: time.Hour, MaxBackoff: time.Hour}},
		func(hf *HostFleet) { got <- hf.Status() })
	defer hf.Stop()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case s := <-got:
			if s.State != remote.Lost {
				continue
			}
			if !strings.Contains(s.Reason, "not aot-tui's JSON") || strings.ContainsAny(s.Reason, "\x1b\x07") {
				t.Fatalf("reason %q", s.Reason)
			}
			if len(hf.Rows()) != 0 {
				t.Fatalf("rows from garbage: %v", hf.Rows())
			}
			return
		case <-deadline:
			t.Fatal("never lost")
		}
	}
}
