package notify

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/aot-loop/aot-tui/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// recorder is a real program run as the notify command: it appends a
// record of each run — the AOT_* variables it was given, sorted, then what
// it read on stdin — to the file named by its first argument; given a
// second, it creates that file when it starts, and given a third, it waits
// for that one to exist before it records (or ends when the test's
// directory is gone: a killed test leaves no script behind).
const recorder = `#!/bin/sh
out="$1"
[ -n "$2" ] && touch "$2"
while [ -n "$3" ] && [ ! -e "$3" ]; do [ -d "${3%/*}" ] || exit 1; sleep 0.02; done
{ echo "--- run"; env | grep '^AOT_' | LC_ALL=C sort; cat; echo; } >> "$out"
`

// writeRecorder writes the recorder script into dir and returns its path.
func writeRecorder(t *testing.T, dir string) string {
	t.Helper()
	testenv.Need(t, "sh")
	if runtime.GOOS == "windows" {
		t.Skip("the recorder is a shell script")
	}
	path := filepath.Join(dir, "record.sh")
	if err := os.WriteFile(path, []byte(recorder), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// run is one run of the recorder: its environment and the JSON it read.
type run struct {
	env  map[string]string
	json map[string]any
	raw  string
}

// readRuns reads the recorder's file.
func readRuns(t *testing.T, path string) []run {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var runs []run
	for _, rec := range strings.Split(string(data), "--- run\n")[1:] {
		r := run{env: map[string]string{}, raw: rec}
		for line := range strings.Lines(rec) {
			line = strings.TrimSuffix(line, "\n")
			if k, v, ok := strings.Cut(line, "="); ok && strings.HasPrefix(k, "AOT_") {
				r.env[k] = v
				continue
			}
			if strings.HasPrefix(line, "{") {
				if err := json.Unmarshal([]byte(line), &r.json); err != nil {
					t.Fatalf("stdin is not one JSON object: %v\n%q", err, line)
				}
			}
		}
		runs = append(runs, r)
	}
	return runs
}

// receiver is a webhook receiver on 127.0.0.1 that records each request;
// hang, when set, decides which requests get no answer until the client
// gives up.
type receiver struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []request
	hang func(n int) bool
	code int
}

type request struct {
	method string
	header http.Header
	body   string
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	rc := &receiver{code: http.StatusOK}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.reqs = append(rc.reqs, request{method: r.Method, header: r.Header.Clone(), body: string(body)})
		n, hang, code := len(rc.reqs), rc.hang, rc.code
		rc.mu.Unlock()
		if hang != nil && hang(n) {
			<-r.Context().Done() // the client gave up
			return
		}
		w.WriteHeader(code)
		io.WriteString(w, "answer\n")
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) requests() []request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]request(nil), rc.reqs...)
}

var when = time.Date(2026, 5, 4, 10, 12, 9, 0, time.UTC)

// Every event sent reaches the command and the webhook exactly once, in
// order, with the event in the environment, on stdin and in the body.
func TestCommandAndWebhookGetEachEventOnce(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "runs")
	rc := newReceiver(t)
	n := New(Config{Command: []string{writeRecorder(t, dir), out}, Webhook: &Webhook{URL: rc.srv.URL + "/hook/secret"}},
		Options{Version: "v9.9.9"})
	kinds := []Kind{NeedsAttention, NeedsYou, Completed, Stopped, CorrectionLost}
	for i, k := range kinds {
		n.Send(Event{Kind: k, Loop: "billing", Path: "/w/billing/.claude/aot-loop-state.md", Reason: "why " + string(k), Time: when.Add(time.Duration(i) * time.Second)})
	}
	n.Close(time.Minute)
	if notes := n.TakeNotes(); len(notes) > 0 {
		t.Fatalf("notes: %q", notes)
	}
	runs := readRuns(t, out)
	reqs := rc.requests()
	if len(runs) != len(kinds) || len(reqs) != len(kinds) {
		t.Fatalf("%d runs and %d requests for %d events", len(runs), len(reqs), len(kinds))
	}
	for i, k := range kinds {
		r := runs[i]
		want := map[string]string{"AOT_EVENT": string(k), "AOT_LOOP": "billing", "AOT_PATH": "/w/billing/.claude/aot-loop-state.md",
			"AOT_HOST": "", "AOT_REASON": "why " + string(k), "AOT_TIME": when.Add(time.Duration(i) * time.Second).Format(time.RFC3339),
			"AOT_TUI_VERSION": "v9.9.9", "AOT_TEXT": "billing: why " + string(k), "AOT_TITLE": "aot-tui: billing " + words[k]}
		for key, v := range want {
			if got, ok := r.env[key]; !ok || got != v {
				t.Errorf("run %d: %s=%q, want %q", i, key, got, v)
			}
		}
		if r.json["v"] != float64(1) || r.json["kind"] != string(k) || r.json["loop"] != "billing" || r.json["reason"] != "why "+string(k) ||
			r.json["aot_tui_version"] != "v9.9.9" || r.json["text"] != "billing: why "+string(k) {
			t.Errorf("run %d: stdin %v", i, r.json)
		}
		q := reqs[i]
		var body map[string]any
		if err := json.Unmarshal([]byte(q.body), &body); err != nil {
			t.Fatalf("request %d: body is not JSON: %v\n%s", i, err, q.body)
		}
		if q.method != http.MethodPost || q.header.Get("Content-Type") != "application/json" || q.header.Get("User-Agent") != "aot-tui/v9.9.9" ||
			body["kind"] != string(k) || body["text"] != "billing: why "+string(k) {
			t.Errorf("request %d: %s %v %s", i, q.method, q.header, q.body)
		}
	}
}

// The ntfy format is a text body with the title in a Title header
// (RFC 2047 when it is not ASCII); slack's is {"text": …}, with < > &
// escaped so that a name cannot mention a channel.
func TestWebhookFormats(t *testing.T) {
	ev := Event{Kind: NeedsYou, Loop: "façade <!channel>", Reason: "needs you: allow Bash?", Time: when}
	for _, format := range []string{FormatNtfy, FormatSlack} {
		t.Run(format, func(t *testing.T) {
			rc := newReceiver(t)
			n := New(Config{Webhook: &Webhook{URL: rc.srv.URL + "/topic", Format: format, Headers: map[string]string{"Authorization": "Bearer tk_x"}}}, Options{Version: "v1"})
			n.Send(ev)
			n.Close(time.Minute)
			reqs := rc.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			q := reqs[0]
			if q.header.Get("Authorization") != "Bearer tk_x" {
				t.Errorf("the configured header is missing: %v", q.header)
			}
			switch format {
			case FormatNtfy:
				title, err := new(mime.WordDecoder).DecodeHeader(q.header.Get("Title"))
				if err != nil || title != "aot-tui: façade <!channel> needs you" || q.body != "façade <!channel>: needs you: allow Bash?" ||
					q.header.Get("Priority") != "high" || q.header.Get("Tags") == "" || !strings.HasPrefix(q.header.Get("Content-Type"), "text/plain") {
					t.Errorf("ntfy: title %q (%v), headers %v, body %q", title, err, q.header, q.body)
				}
			case FormatSlack:
				var body map[string]string
				if err := json.Unmarshal([]byte(q.body), &body); err != nil || len(body) != 1 ||
					body["text"] != "aot-tui: façade &lt;!channel&gt; needs you: needs you: allow Bash?" {
					t.Errorf("slack: %q (%v)", q.body, err)
				}
			}
		})
	}
}

func TestFormatFor(t *testing.T) {
	for url, want := range map[string]string{
		"https://ntfy.sh/abc": FormatNtfy, "https://ntfy.example.org/t": FormatNtfy, "http://NTFY.SH/x": FormatNtfy,
		"https://hooks.slack.com/services/T/B/X": FormatSlack,
		"https://chat.example.org/hooks/abc":     FormatJSON, "http://127.0.0.1:8080/": FormatJSON, "https://notntfy.sh/x": FormatJSON,
	} {
		if got := (&Webhook{URL: url}).FormatFor(); got != want {
			t.Errorf("%s: %s, want %s", url, got, want)
		}
	}
	if got := (&Webhook{URL: "https://ntfy.sh/x", Format: FormatJSON}).FormatFor(); got != FormatJSON {
		t.Errorf("format: json is overridden: %s", got)
	}
	if got := (&Webhook{URL: "https://user:pw@hooks.slack.com/services/T/B/SECRET?x=1"}).Where(); got != "https://hooks.slack.com" {
		t.Errorf("Where shows more than scheme and host: %s", got)
	}
}

// hostile is a loop whose name, path and reason carry escape sequences,
// line breaks, a bidirectional override and a reason of 20,000 bytes.
var hostile = Event{Kind: Stopped, Loop: "evil\x1b]0;pwned\x07\nname\u202e<!channel>", Path: "/w/evil\x1b[2J/.claude/aot-loop-state.md",
	Reason: "stopped: \x1b]52;c;Y2xpcA==\x07\r\nnext" + strings.Repeat("x", 20000), Time: when}

// safe reports whether s holds no control character and no invisible
// format character, raw.
func safe(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u202e' || r == utf8.RuneError {
			return false
		}
	}
	return true
}

// A hostile loop's strings arrive escaped and cut short, in the
// environment, on stdin, in the body and in the headers.
func TestHostileStringsArriveSanitised(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "runs")
	rc := newReceiver(t)
	ntfy := newReceiver(t)
	n := New(Config{Command: []string{writeRecorder(t, dir), out}, Webhook: &Webhook{URL: rc.srv.URL}}, Options{})
	n2 := New(Config{Webhook: &Webhook{URL: ntfy.srv.URL, Format: FormatNtfy}}, Options{})
	n.Send(hostile)
	n2.Send(hostile)
	n.Close(time.Minute)
	n2.Close(time.Minute)
	runs := readRuns(t, out)
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	r := runs[0]
	for k, v := range r.env {
		if !safe(v) {
			t.Errorf("%s carries a raw control: %q", k, v)
		}
	}
	if want := `evil\x1b]0;pwned\x07↵name\u202e<!channel>`; r.env["AOT_LOOP"] != want {
		t.Errorf("AOT_LOOP %q, want %q", r.env["AOT_LOOP"], want)
	}
	if n := utf8.RuneCountInString(r.env["AOT_REASON"]); n > maxReason || !strings.HasSuffix(r.env["AOT_REASON"], "…") {
		t.Errorf("the reason is not cut short: %d runes", n)
	}
	for k, v := range r.json {
		if s, ok := v.(string); ok && !safe(s) {
			t.Errorf("stdin's %s carries a raw control: %q", k, s)
		}
	}
	body := rc.requests()[0].body
	var ev map[string]any
	if err := json.Unmarshal([]byte(body), &ev); err != nil || !safe(body) {
		t.Fatalf("body %q (%v)", body, err)
	}
	q := ntfy.requests()[0]
	if !safe(q.body) || !safe(q.header.Get("Title")) {
		t.Errorf("ntfy: title %q body %q", q.header.Get("Title"), q.body)
	}
}

// waitFor waits for a file to appear (a liveness bound, not a timing
// assertion).
func waitFor(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s never appeared", path)
}

// A command that does not return holds up neither Send nor the events
// after it: they wait in the bounded queue, the ones beyond it are
// dropped with a note, and what was queued is delivered once it returns.
func TestSlowCommandNeverBlocksSend(t *testing.T) {
	dir := t.TempDir()
	out, started, release := filepath.Join(dir, "runs"), filepath.Join(dir, "started"), filepath.Join(dir, "release")
	n := New(Config{Command: []string{writeRecorder(t, dir), out, started, release}, Timeout: 5 * time.Minute}, Options{Queue: 2})
	n.Send(Event{Kind: Completed, Loop: "l0", Time: when})
	waitFor(t, started) // the first run is under way, and waits
	for i := 1; i < 10; i++ {
		n.Send(Event{Kind: NeedsAttention, Loop: "l" + string(rune('0'+i)), Time: when}) // returns at once: the test would hang otherwise
	}
	notes := n.TakeNotes()
	if len(notes) != 1 || !strings.Contains(notes[0], "is behind (2 events waiting): dropped needs_attention for l3") {
		t.Fatalf("notes while behind: %q", notes)
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	n.Close(time.Minute)
	var loops []string
	for _, r := range readRuns(t, out) {
		loops = append(loops, r.env["AOT_LOOP"])
	}
	if strings.Join(loops, " ") != "l0 l1 l2" {
		t.Errorf("delivered %q, want the first event and the two queued", loops)
	}
	if notes := n.TakeNotes(); len(notes) != 1 || !strings.Contains(notes[0], "dropped 6 more events while it was behind") {
		t.Errorf("notes after: %q", notes)
	}
}

// A webhook that never answers is given up at the timeout, with a note,
// and the events after it still arrive.
func TestHangingWebhookIsGivenUp(t *testing.T) {
	rc := newReceiver(t)
	rc.hang = func(n int) bool { return n == 1 }
	n := New(Config{Webhook: &Webhook{URL: rc.srv.URL + "/secret-path"}, Timeout: 200 * time.Millisecond}, Options{})
	n.Send(Event{Kind: NeedsYou, Loop: "first", Time: when})
	n.Send(Event{Kind: Completed, Loop: "second", Time: when})
	n.Close(time.Minute)
	reqs := rc.requests()
	if len(reqs) != 2 || !strings.Contains(reqs[1].body, `"loop":"second"`) {
		t.Fatalf("requests: %v", reqs)
	}
	notes := n.TakeNotes()
	if len(notes) != 1 || !strings.Contains(notes[0], "webhook "+rc.srv.URL+" (json) failed for first (needs_you): no answer within 200ms") ||
		strings.Contains(notes[0], "secret-path") {
		t.Fatalf("notes: %q", notes)
	}
}

// A command that fails, or is not there, is a note of one sanitised line
// that says how it failed.
func TestFailingCommandIsANote(t *testing.T) {
	testenv.Need(t, "sh")
	dir := t.TempDir()
	script := filepath.Join(dir, "fail.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf 'boom \\033[31m\\n2nd line\\n' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	n := New(Config{Command: []string{script}}, Options{})
	n.Send(hostile)
	n.Close(time.Minute)
	missing := New(Config{Command: []string{"aot-tui-no-such-program"}}, Options{})
	missing.Send(Event{Kind: Completed, Loop: "x", Time: when})
	missing.Close(time.Minute)
	notes := append(n.TakeNotes(), missing.TakeNotes()...)
	if len(notes) != 2 {
		t.Fatalf("notes: %q", notes)
	}
	if want := `(stopped): exit status 3: boom \x1b[31m`; !strings.Contains(notes[0], want) || !strings.Contains(notes[0], `failed for evil\x1b]0;pwned`) {
		t.Errorf("note %q lacks %q", notes[0], want)
	}
	if !strings.Contains(notes[1], "aot-tui-no-such-program: not found") {
		t.Errorf("note %q", notes[1])
	}
	for _, s := range notes {
		if !safe(s) {
			t.Errorf("note carries a raw control: %q", s)
		}
	}
}

// A command still running at the timeout is killed, and said so.
func TestCommandTimeout(t *testing.T) {
	dir := t.TempDir()
	out, started := filepath.Join(dir, "runs"), filepath.Join(dir, "started")
	n := New(Config{Command: []string{writeRecorder(t, dir), out, started, filepath.Join(dir, "never")}, Timeout: 300 * time.Millisecond}, Options{})
	n.Send(Event{Kind: Completed, Loop: "x", Time: when})
	n.Close(time.Minute)
	notes := n.TakeNotes()
	if len(notes) != 1 || !strings.Contains(notes[0], "still running after 300ms: killed") {
		t.Fatalf("notes: %q", notes)
	}
	if runs := readRuns(t, out); len(runs) != 0 {
		t.Errorf("the killed run recorded: %v", runs)
	}
}

// Try says what each sink made of the sample.
func TestTry(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "runs")
	rc := newReceiver(t)
	rc.code = http.StatusForbidden
	res := Try(Config{Command: []string{writeRecorder(t, dir), out}, Webhook: &Webhook{URL: rc.srv.URL}}, Event{Kind: Test, Loop: "t"}, Options{Version: "v1"})
	if len(res) != 2 || res[0].Err != nil || res[0].What != "exit status 0" || res[1].Err == nil || res[1].Err.Error() != "HTTP 403 Forbidden: answer" {
		t.Fatalf("results: %+v", res)
	}
	if runs := readRuns(t, out); len(runs) != 1 || runs[0].env["AOT_EVENT"] != "test" {
		t.Fatalf("runs: %v", runs)
	}
}

// A nil Notifier (nothing configured) takes every call and does nothing;
// a closed one drops what is sent.
func TestNilAndClosedNotifier(t *testing.T) {
	var n *Notifier
	n.Send(Event{Kind: Completed})
	n.Close(time.Second)
	if n.TakeNotes() != nil || n.Notes() != nil || !n.Config().Empty() {
		t.Fatal("a nil Notifier did something")
	}
	if New(Config{}, Options{}) != nil {
		t.Fatal("an empty config made a Notifier")
	}
	rc := newReceiver(t)
	c := New(Config{Webhook: &Webhook{URL: rc.srv.URL}, Events: []Kind{Completed}}, Options{})
	c.Send(Event{Kind: NeedsAttention, Loop: "not wanted"})
	c.Send(Event{Kind: Completed, Loop: "wanted"})
	c.Close(time.Minute)
	c.Send(Event{Kind: Completed, Loop: "after close"})
	c.Close(time.Minute)
	if reqs := rc.requests(); len(reqs) != 1 || !strings.Contains(reqs[0].body, `"loop":"wanted"`) {
		t.Fatalf("requests: %v", reqs)
	}
}

func TestRowKind(t *testing.T) {
	for _, c := range []struct {
		attention, why string
		want           Kind
	}{
		{"", "completed", Completed},
		{"stopped", "stopped: Max stall count reached", Stopped},
		{"needs_you", "needs you: allow Bash?", NeedsYou},
		{"near_limit", "stall 2/3", NeedsAttention},
		{"invalid", "1 validation error: …", NeedsAttention},
		{"redirect", "paused: redirect_requested is set", NeedsAttention},
	} {
		if got := RowKind(c.attention, c.why); got != c.want {
			t.Errorf("RowKind(%q, %q) = %s, want %s", c.attention, c.why, got, c.want)
		}
	}
}
