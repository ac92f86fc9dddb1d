package notify

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/internal/appfiles"
	"go.yaml.in/yaml/v3"
)

// DefaultTimeout bounds each command run and each webhook request.
const DefaultTimeout = 10 * time.Second

// Config is the notify section of the config file: where events go.
type Config struct {
	// File is the file it was read from ("" when none was).
	File string
	// Command is the program to run for each event and its arguments
	// (argv: no shell runs it).
	Command []string
	// Webhook is the URL to POST each event to, and how.
	Webhook *Webhook
	// Timeout bounds each command run and each request (DefaultTimeout
	// when zero).
	Timeout time.Duration
	// Events are the kinds to send (nil: every kind).
	Events []Kind
}

// Webhook is where a webhook posts and in which format.
type Webhook struct {
	URL string
	// Format is FormatNtfy, FormatSlack or FormatJSON; "" chooses by the
	// URL (FormatFor).
	Format string
	// Headers are added to each request (an access token).
	Headers map[string]string
}

// The webhook formats.
const (
	// FormatNtfy: the text as a plain-text body, the title in a Title
	// header (ntfy.sh and self-hosted ntfy servers).
	FormatNtfy = "ntfy"
	// FormatSlack: {"text": "…"} (Slack's incoming webhooks).
	FormatSlack = "slack"
	// FormatJSON: the event's JSON object, whose "text" key makes it a
	// Slack-compatible message as well (Mattermost, Rocket.Chat, Discord's
	// /slack endpoint, any receiver of JSON).
	FormatJSON = "json"
)

var formats = []string{FormatNtfy, FormatSlack, FormatJSON}

// FormatFor is the format of w: its Format, else ntfy for ntfy.sh and any
// host whose name starts with "ntfy.", slack for hooks.slack.com, else json.
func (w *Webhook) FormatFor() string {
	if w.Format != "" {
		return w.Format
	}
	u, err := url.Parse(w.URL)
	if err != nil {
		return FormatJSON
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case host == "ntfy.sh" || strings.HasPrefix(host, "ntfy."):
		return FormatNtfy
	case host == "hooks.slack.com":
		return FormatSlack
	}
	return FormatJSON
}

// Where is the webhook's URL without its path, query and credentials, for
// messages: a Slack webhook's path is its secret.
func (w *Webhook) Where() string {
	u, err := url.Parse(w.URL)
	if err != nil || u.Host == "" {
		return "the webhook"
	}
	return u.Scheme + "://" + u.Host
}

// Empty reports whether c sends nowhere.
func (c Config) Empty() bool { return len(c.Command) == 0 && c.Webhook == nil }

// Wants reports whether c sends events of kind k (the test always).
func (c Config) Wants(k Kind) bool {
	return k == Test || c.Events == nil || slices.Contains(c.Events, k)
}

// ConfigFile is the config file: $XDG_CONFIG_HOME/aot-tui/config.yaml,
// else ~/.config/aot-tui/config.yaml ("" when neither can be named).
func ConfigFile() string { return appfiles.ConfigFile("config.yaml") }

// ConfigFileHint names the config file on any machine, for help texts.
const ConfigFileHint = "$XDG_CONFIG_HOME/aot-tui/config.yaml, else ~/.config/aot-tui/config.yaml"

// LoadConfig reads the notify section of the config file at path. A
// missing file, or one without a notify section, is an empty Config.
// Every error is one line naming the file, the line and what to do.
func LoadConfig(path string) (Config, error) {
	c := Config{}
	if path == "" {
		return c, nil
	}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return c, nil
	case err != nil:
		return c, fmt.Errorf("config file %s: %v — make it readable, or remove it", path, err)
	}
	c.File = path
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return c, fmt.Errorf("config file %s: %v — fix the YAML", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return c, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return c, nil
	}
	if root.Kind != yaml.MappingNode {
		return c, fmt.Errorf("config file %s line %d: expected a mapping of sections (notify: …) — see the README's Notifications", path, root.Line)
	}
	bad := func(n *yaml.Node, format string, args ...any) error {
		return fmt.Errorf("config file %s line %d: %s", path, n.Line, fmt.Sprintf(format, args...))
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Value != "notify" {
			return c, bad(k, "unknown section %q — the file has one section, notify (README: Notifications)", k.Value)
		}
		if v.Tag == "!!null" {
			continue
		}
		if v.Kind != yaml.MappingNode {
			return c, bad(v, "notify: expected a mapping (command:, webhook:, timeout:, events:)")
		}
		if err := c.readNotify(v, bad); err != nil {
			return c, err
		}
	}
	return c, nil
}

type badFunc func(n *yaml.Node, format string, args ...any) error

func (c *Config) readNotify(m *yaml.Node, bad badFunc) error {
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if line, twice := seen[k.Value]; twice {
			return bad(k, "notify.%s is set twice (also line %d) — keep one", k.Value, line)
		}
		seen[k.Value] = k.Line
		var err error
		switch k.Value {
		case "command":
			c.Command, err = readCommand(v, bad)
		case "webhook":
			c.Webhook, err = readWebhook(v, bad)
		case "timeout":
			c.Timeout, err = readTimeout(v, bad)
		case "events":
			c.Events, err = readEvents(v, bad)
		default:
			err = bad(k, "unknown key notify.%s — the keys are command, webhook, timeout and events", k.Value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readCommand reads argv: a list of strings, or one string split at
// blanks (no quoting, no shell: give a list for an argument with spaces).
func readCommand(v *yaml.Node, bad badFunc) ([]string, error) {
	var argv []string
	switch v.Kind {
	case yaml.ScalarNode:
		argv = strings.Fields(v.Value)
	case yaml.SequenceNode:
		for _, a := range v.Content {
			if a.Kind != yaml.ScalarNode {
				return nil, bad(a, "notify.command: each argument is a string, such as notify-send or --urgency=critical")
			}
			argv = append(argv, a.Value)
		}
	default:
		return nil, bad(v, "notify.command: give the program and its arguments as a list, such as [notify-send, --app-name=aot-tui]")
	}
	if len(argv) == 0 || argv[0] == "" {
		return nil, bad(v, "notify.command: name the program to run, such as [notify-send, --app-name=aot-tui]")
	}
	for _, a := range argv {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, bad(v, "notify.command: an argument holds a NUL byte — remove it")
		}
	}
	return argv, nil
}

// readWebhook reads a URL, or a mapping of url, format and headers.
func readWebhook(v *yaml.Node, bad badFunc) (*Webhook, error) {
	w := &Webhook{}
	urlNode := v
	switch v.Kind {
	case yaml.ScalarNode:
		w.URL = v.Value
	case yaml.MappingNode:
		urlNode = nil
		for i := 0; i+1 < len(v.Content); i += 2 {
			k, val := v.Content[i], v.Content[i+1]
			switch k.Value {
			case "url":
				if val.Kind != yaml.ScalarNode {
					return nil, bad(val, "notify.webhook.url: give the URL as a string")
				}
				w.URL, urlNode = val.Value, val
			case "format":
				if val.Kind != yaml.ScalarNode || !slices.Contains(formats, val.Value) {
					return nil, bad(val, "notify.webhook.format: give ntfy, slack or json")
				}
				w.Format = val.Value
			case "headers":
				if val.Kind != yaml.MappingNode {
					return nil, bad(val, "notify.webhook.headers: give a mapping of header: value, such as Authorization: Bearer tk_…")
				}
				w.Headers = map[string]string{}
				for j := 0; j+1 < len(val.Content); j += 2 {
					hk, hv := val.Content[j], val.Content[j+1]
					if !validHeaderName(hk.Value) || hv.Kind != yaml.ScalarNode || strings.ContainsAny(hv.Value, "\r\n\x00") {
						return nil, bad(hk, "notify.webhook.headers: %q is not a header a request can carry — a name of letters, digits and -, a value on one line", hk.Value)
					}
					w.Headers[http.CanonicalHeaderKey(hk.Value)] = hv.Value
				}
			default:
				return nil, bad(k, "unknown key notify.webhook.%s — the keys are url, format and headers", k.Value)
			}
		}
		if urlNode == nil {
			return nil, bad(v, "notify.webhook: give its url")
		}
	default:
		return nil, bad(v, "notify.webhook: give a URL, such as https://ntfy.sh/my-topic, or a mapping with url:")
	}
	u, err := url.Parse(w.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, bad(urlNode, "notify.webhook: %q is not an http:// or https:// URL", w.URL)
	}
	return w, nil
}

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func readTimeout(v *yaml.Node, bad badFunc) (time.Duration, error) {
	d, err := time.ParseDuration(v.Value)
	if v.Kind != yaml.ScalarNode || err != nil || d <= 0 || d > 10*time.Minute {
		return 0, bad(v, "notify.timeout: give a duration from 1ms to 10m, such as 10s")
	}
	return d, nil
}

func readEvents(v *yaml.Node, bad badFunc) ([]Kind, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, bad(v, "notify.events: give a list of kinds, such as [needs_you, completed, stopped]")
	}
	kinds := []Kind{}
	for _, e := range v.Content {
		k := Kind(e.Value)
		if e.Kind != yaml.ScalarNode || k == Test || !slices.Contains(Kinds, k) {
			return nil, bad(e, "notify.events: %q is not a kind — give needs_attention, needs_you, completed, stopped or correction_lost", e.Value)
		}
		kinds = append(kinds, k)
	}
	return kinds, nil
}
