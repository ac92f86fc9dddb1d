package report

import (
	"bytes"
	"context"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/history"
	"github.com/aot-loop/aot-tui/internal/testenv"
	"github.com/aot-loop/aot-tui/sim"
)

// chromium finds Debian's headless browser: a test that needs it fails
// under CI (where .ci/run installs it) and is skipped elsewhere, with a
// line on the terminal saying so (testenv).
func chromium(t *testing.T) string {
	t.Helper()
	return testenv.Need(t, "chromium")
}

// renderDOM loads page in headless Chromium and returns the DOM it built.
func renderDOM(t *testing.T, page []byte) string {
	t.Helper()
	bin := chromium(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", "file://"+file)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	return stdout.String()
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// text is the DOM's text, tags removed and whitespace folded.
func text(dom string) string {
	return strings.Join(strings.Fields(html.UnescapeString(tagRE.ReplaceAllString(dom, " "))), " ")
}

// The HTML report of the stalled run, as a browser builds it, shows the
// outcome, the corrections, the iterations, the chart and the graph.
func TestHTMLReportInChromium(t *testing.T) {
	versions := record(t, scenarios[1])
	r, err := Build("recorded run (stalled)", versions)
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	HTML(&page, r)
	dom := renderDOM(t, page.Bytes())
	body := text(dom)
	for _, want := range []string{
		"Post-mortem: Add user authentication to the web API",
		"STOPPED — Max stall count reached · iterations 3 of 12 · stall 3 of 3",
		"A1 User model and migration User table with email, password hash and timestamps; migration 0007 internal/users/model.go",
		"session_strategy — selected A5 of A4, A5; failed: A4",
		"A4 failed: JWT revocation cannot work behind the caching proxy",
		"dag_adjustment kept added A10 \"Rate-limit the login endpoint\" depending on A1",
		"Corrections (1)",
		"■ unresolved atoms", "■ stall count (right scale)",
		"Auth tests pass — command: go test ./internal/auth/...",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page's text lacks %q", want)
		}
	}
	// The elements came through as elements: the tables, the chart with
	// its three lines and a label per iteration, the drawing.
	for _, want := range []string{`<table id="iterations">`, `<svg id="chart"`, `<pre id="graph">`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the DOM lacks %s", want)
		}
	}
	if n := strings.Count(dom, "<path "); n != 3 {
		t.Errorf("%d paths in the chart, want 3", n)
	}
	if n := strings.Count(dom, "<tr>"); n < 1+len(r.Iterations) {
		t.Errorf("%d table rows", n)
	}
	if !strings.Contains(dom, "A9 Credential chec") || !strings.Contains(dom, "╭") {
		t.Error("the graph drawing is missing from the page")
	}
	if t.Failed() {
		t.Logf("text of the page:\n%s", body)
	}
}

// Text from the state file cannot add markup or script to the page.
func TestHTMLReportEscapesTheFile(t *testing.T) {
	bad := strings.Replace(sim.DemoState, `goal: "Add user authentication to the web API"`,
		`goal: "<script>document.title='pwned'</script><img src=x onerror=alert(1)> & \u001b]0;title\u0007"`, 1)
	r, err := Build("<b>source</b>", []history.Version{{Data: []byte(bad)}})
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	HTML(&page, r)
	for _, banned := range []string{"<script", "<img", "url(", "@import", "\x1b", "\x07"} {
		if strings.Contains(page.String(), banned) {
			t.Fatalf("the page contains %q", banned)
		}
	}
	// Nothing is fetched: no element has a src or href.
	if m := regexp.MustCompile(`<[a-zA-Z][^>]*\s(src|href)=`).FindString(page.String()); m != "" {
		t.Fatalf("the page loads something: %s", m)
	}
	dom := renderDOM(t, page.Bytes())
	if strings.Contains(dom, "<script") || strings.Contains(dom, "<img") || strings.Contains(dom, "<b>source") {
		t.Fatal("text from the file became markup in the browser")
	}
	if body := text(dom); !strings.Contains(body, "<script>document.title='pwned'</script>") || !strings.Contains(body, `\x1b]0;title\x07`) {
		t.Fatalf("the goal should show as text, escapes visible:\n%s", body)
	}
}
