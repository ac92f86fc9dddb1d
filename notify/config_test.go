package notify

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadConfig(t *testing.T) {
	path := writeConfig(t, `# aot-tui
notify:
  command: [notify-send, "--app-name=aot tui"]
  webhook:
    url: https://ntfy.example.org/loops
    format: ntfy
    headers:
      authorization: Bearer tk_abc
  timeout: 3s
  events: [needs_you, completed]
`)
	c, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.File != path || !slices.Equal(c.Command, []string{"notify-send", "--app-name=aot tui"}) || c.Timeout != 3*time.Second ||
		c.Webhook == nil || c.Webhook.URL != "https://ntfy.example.org/loops" || c.Webhook.Format != FormatNtfy ||
		c.Webhook.Headers["Authorization"] != "Bearer tk_abc" || !slices.Equal(c.Events, []Kind{NeedsYou, Completed}) {
		t.Fatalf("config: %+v %+v", c, c.Webhook)
	}
	if !c.Wants(Completed) || c.Wants(Stopped) || !c.Wants(Test) {
		t.Error("Wants does not follow events")
	}
	// A string command is split at blanks; a string webhook is its URL.
	c, err = LoadConfig(writeConfig(t, "notify:\n  command: notify-send -u critical\n  webhook: https://hooks.slack.com/services/T/B/X\n"))
	if err != nil || !slices.Equal(c.Command, []string{"notify-send", "-u", "critical"}) || c.Webhook.FormatFor() != FormatSlack || c.Events != nil {
		t.Fatalf("string forms: %+v %v", c, err)
	}
	// No file, an empty one, or no notify section: nothing to send.
	for _, p := range []string{filepath.Join(t.TempDir(), "none.yaml"), writeConfig(t, ""), writeConfig(t, "# nothing\n"), writeConfig(t, "notify:\n")} {
		if c, err := LoadConfig(p); err != nil || !c.Empty() {
			t.Errorf("%s: %+v %v", p, c, err)
		}
	}
}

// Each mistake is refused in one line that names the file, the line and
// what to do.
func TestLoadConfigErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"notify: [a\n", "fix the YAML"},
		{"- notify\n", "line 1: expected a mapping of sections"},
		{"notfy:\n  command: x\n", `line 1: unknown section "notfy"`},
		{"notify: 3\n", "line 1: notify: expected a mapping"},
		{"notify:\n  comand: [x]\n", "line 2: unknown key notify.comand — the keys are command, webhook, timeout and events"},
		{"notify:\n  command: []\n", "line 2: notify.command: name the program to run"},
		{"notify:\n  command:\n    - [a]\n", "line 3: notify.command: each argument is a string"},
		{"notify:\n  command: {a: b}\n", "line 2: notify.command: give the program and its arguments as a list"},
		{"notify:\n  command: x\n  command: y\n", "line 3: notify.command is set twice (also line 2) — keep one"},
		{"notify:\n  webhook: ftp://x/y\n", `line 2: notify.webhook: "ftp://x/y" is not an http:// or https:// URL`},
		{"notify:\n  webhook:\n    url: https://x/y\n    format: xml\n", "line 4: notify.webhook.format: give ntfy, slack or json"},
		{"notify:\n  webhook:\n    format: json\n", "line 3: notify.webhook: give its url"},
		{"notify:\n  webhook:\n    url: https://x\n    token: t\n", "line 4: unknown key notify.webhook.token"},
		{"notify:\n  webhook:\n    url: https://x\n    headers:\n      \"Bad Name\": v\n", `line 5: notify.webhook.headers: "Bad Name" is not a header`},
		{"notify:\n  timeout: soon\n", "line 2: notify.timeout: give a duration from 1ms to 10m"},
		{"notify:\n  timeout: -1s\n", "line 2: notify.timeout"},
		{"notify:\n  events: [completed, finished]\n", `line 2: notify.events: "finished" is not a kind`},
		{"notify:\n  events: completed\n", "line 2: notify.events: give a list of kinds"},
	} {
		path := writeConfig(t, c.text)
		_, err := LoadConfig(path)
		if err == nil {
			t.Errorf("%q: accepted", c.text)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "config file "+path) || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%q:\n got %s\nwant %s … %s", c.text, msg, path, c.want)
		}
	}
}
