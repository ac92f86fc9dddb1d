package verify

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// project copies the fixture project name (testdata/projects/name) to a
// temporary directory, so that no check can change the fixture, and
// returns the copy's directory and its base_case.
func project(t *testing.T, name string) (string, model.BaseCase) {
	t.Helper()
	src := filepath.Join("testdata", "projects", name)
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	doc, err := statefile.Load(filepath.Join(dst, ".claude", "aot-loop-state.md"), 0)
	if err != nil {
		t.Fatal(err)
	}
	return dst, doc.State.Objective.BaseCase
}

// needPOSIXShell skips a test whose commands are POSIX shell where checks
// run through another shell.
func needPOSIXShell(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("its commands are POSIX shell, and on Windows checks run through cmd.exe /c")
	}
}

func run(t *testing.T, name string, opts Options) (*Report, string) {
	t.Helper()
	dir, bc := project(t, name)
	if len(Commands(bc)) > 0 {
		needPOSIXShell(t)
	}
	opts.Dir = dir
	if opts.Timeout == 0 {
		opts.Timeout = 20 * time.Second
	}
	return Run(context.Background(), bc, opts), dir
}

// at is the result at a position such as "2.1".
func at(t *testing.T, rep *Report, pos string) *Result {
	t.Helper()
	var find func(items []*Result) *Result
	find = func(items []*Result) *Result {
		for _, it := range items {
			if it.Pos() == pos {
				return it
			}
			if r := find(it.Children); r != nil {
				return r
			}
		}
		return nil
	}
	r := find(rep.Items)
	if r == nil {
		t.Fatalf("no item at %s", pos)
	}
	return r
}

func wantOutcome(t *testing.T, rep *Report, want map[string]Outcome) {
	t.Helper()
	for pos, o := range want {
		if r := at(t, rep, pos); r.Outcome != o {
			t.Errorf("%s %q: %s, want %s (evidence %q, reason %q)", pos, r.Item, r.Outcome, o, r.Evidence, r.Reason)
		}
	}
}

func TestPassingChecklist(t *testing.T) {
	rep, dir := run(t, "pass", Options{})
	if rep.Outcome != Pass || !rep.Passed() {
		t.Fatalf("outcome %s, want pass", rep.Outcome)
	}
	wantOutcome(t, rep, map[string]Outcome{
		"1": Pass, "1.1": Pass, "1.2": Pass, "1.3": Pass, "1.4": Pass, "1.5": NotCheckable,
		"2": Pass, "2.1": Fail, "2.2": Pass, // an any_of passes on one alternative
		"3": Pass, "4": Pass, "5": Pass,
		"6": Pass, "6.1": Pass, "6.1.1": Fail, "6.1.2": Pass,
		"7": NotCheckable,
	})
	if got := (Counts{Pass: 9, Fail: 2, NotCheckable: 2}); rep.Counts != got {
		t.Errorf("counts %+v, want %+v", rep.Counts, got)
	}
	if rep.Dir != dir {
		t.Errorf("dir %q, want %q", rep.Dir, dir)
	}
	r := at(t, rep, "1.2")
	if r.Stdout.Text != "built\n" || r.Stderr.Text != "warning\n" || r.ExitCode != 0 || !r.Ran {
		t.Errorf("1.2 kept stdout %q stderr %q exit %d", r.Stdout.Text, r.Stderr.Text, r.ExitCode)
	}
	if r.Started.IsZero() || r.Duration <= 0 {
		t.Errorf("1.2 has no time: started %v, took %v", r.Started, r.Duration)
	}
	if got := at(t, rep, "2.2").Evidence; got != "Directory exists with 3 files: docs/" {
		t.Errorf("directory evidence %q", got)
	}
	if got := at(t, rep, "1.4").Evidence; got != "2 files match pattern: src/*.go" {
		t.Errorf("glob evidence %q", got)
	}
}

func TestFailingChecklist(t *testing.T) {
	rep, _ := run(t, "fail", Options{})
	if rep.Outcome != Fail || rep.Passed() {
		t.Fatalf("outcome %s, want fail", rep.Outcome)
	}
	wantOutcome(t, rep, map[string]Outcome{
		"1": Fail, "2": Fail, "3": Fail, "4": Fail, "5": Fail, "6": Fail, "7": Fail, "8": Fail,
		"9": Pass, "10": Fail, "11": Fail, "11.1": Pass, "11.2": Fail,
	})
	evidence := map[string]string{
		"1":  "Command exited with code 1 (failure)",
		"2":  "Command exited with code 0 (expected failure)",
		"3":  "Path not found: dist/app.js",
		"4":  "No files match pattern: dist/*.map",
		"5":  "File exists (10B) (expected missing): leftover.txt",
		"6":  "Directory exists with 2 files (expected missing): tmp",
		"7":  "1 files match pattern (expected none): *.log",
		"8":  "Command exited with code -15 (failure)",
		"9":  "File exists (1.5KB): big.txt",
		"10": "OR group: 0/2 passed (need 1)",
		"11": "AND group: 1/2 passed",
	}
	for pos, want := range evidence {
		if got := at(t, rep, pos).Evidence; got != want {
			t.Errorf("%s: evidence %q, want %q", pos, got, want)
		}
	}
	r := at(t, rep, "1")
	if r.Stdout.Text != "ok 1\r\nnot ok 2\n" || r.Stderr.Text != "FAIL: TestLogin\n" {
		t.Errorf("output not kept as written: stdout %q stderr %q", r.Stdout.Text, r.Stderr.Text)
	}
	if got, want := r.OutputSummary(), "ok 1\nnot ok 2\n\nSTDERR: FAIL: TestLogin\n"; got != want {
		t.Errorf("output_summary %q, want %q", got, want)
	}
	if at(t, rep, "8").ExitCode != -int(syscall.SIGTERM) {
		t.Errorf("a shell killed by SIGTERM: exit %d, want -15 as Python reports it", at(t, rep, "8").ExitCode)
	}
}

func TestMissingProgram(t *testing.T) {
	rep, _ := run(t, "missing", Options{})
	wantOutcome(t, rep, map[string]Outcome{"1": Fail, "2": Fail, "3": Pass})
	for _, pos := range []string{"1", "2"} {
		r := at(t, rep, pos)
		if !r.NotFound || r.ExitCode != 127 {
			t.Errorf("%s: not_found %v exit %d, want true 127", pos, r.NotFound, r.ExitCode)
		}
		if !strings.Contains(r.Reason, "could not find the program") || !strings.Contains(r.Reason, "aot_verify_no_such_program") {
			t.Errorf("%s: reason %q does not say what is missing", pos, r.Reason)
		}
	}
	// A not_command passes when its command fails, but a program that is
	// not there proves nothing: it fails (the script would pass it).
	if got := at(t, rep, "2").Evidence; !strings.Contains(got, "proves nothing") {
		t.Errorf("not_command evidence %q", got)
	}
}

// runHanging runs, in a new directory, a checklist whose first check
// hangs — its shell says "started", starts a child in the background,
// writes the child's PID to child.pid and waits — and whose second
// passes, with a timeout of 300 ms; the run must end well within 10 s. It
// returns the directory and the report.
func runHanging(t *testing.T) (dir string, rep *Report) {
	t.Helper()
	dir = t.TempDir()
	bc := model.BaseCase{IsChecklist: true, Checklist: []model.ChecklistItem{
		{Item: "hangs", Check: &model.Check{Type: model.CheckCommand, Value: "echo started; sleep 60 & echo $! > child.pid; wait"}},
		{Item: "next", Check: &model.Check{Type: model.CheckCommand, Value: "echo next"}},
	}}
	t0 := time.Now()
	rep = Run(context.Background(), bc, Options{Dir: dir, Timeout: 300 * time.Millisecond})
	if took := time.Since(t0); took > 10*time.Second {
		t.Fatalf("the run took %v: the timeout did not end the check", took)
	}
	return dir, rep
}

func TestTimeoutKillsTheProcessGroupAndGoesOn(t *testing.T) {
	needPOSIXShell(t)
	dir, rep := runHanging(t)
	r := rep.Items[0]
	if r.Outcome != Fail || !r.TimedOut || r.ExitCode != -1 {
		t.Fatalf("outcome %s timed_out %v exit %d", r.Outcome, r.TimedOut, r.ExitCode)
	}
	if r.Evidence != "Command timed out after 0.3s" || r.OutputSummary() != r.Evidence {
		t.Errorf("evidence %q, summary %q", r.Evidence, r.OutputSummary())
	}
	if r.Stdout.Text != "started\n" {
		t.Errorf("output before the timeout was lost: %q", r.Stdout.Text)
	}
	if rep.Items[1].Outcome != Pass {
		t.Errorf("the check after a timeout: %s", rep.Items[1].Outcome)
	}
	data, err := os.ReadFile(filepath.Join(dir, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	waitGone(t, pid, "the command's child outlived the timeout")
}

func TestBackgroundChildDoesNotHoldTheRun(t *testing.T) {
	needPOSIXShell(t)
	// The shell exits at once, leaving a child with its output pipes: the
	// verdict is the shell's, and the child does not outlive the check.
	dir := t.TempDir()
	bc := model.BaseCase{Legacy: &model.Check{Type: model.CheckCommand, Value: "sleep 60 & echo $! > child.pid; exit 0"}}
	t0 := time.Now()
	rep := Run(context.Background(), bc, Options{Dir: dir, Timeout: 30 * time.Second})
	if took := time.Since(t0); took > 10*time.Second {
		t.Fatalf("took %v waiting for a background child", took)
	}
	if rep.Outcome != Pass {
		t.Fatalf("outcome %s (%s)", rep.Outcome, rep.Items[0].Evidence)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "child.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	waitGone(t, pid, "the background child outlived the check")
}

func TestStoppedRun(t *testing.T) {
	needPOSIXShell(t)
	dir, bc := project(t, "hang")
	ctx, cancel := context.WithCancel(context.Background())
	var started []string
	opts := Options{Dir: dir, Timeout: time.Minute, Progress: func(p Progress) {
		if !p.Done {
			started = append(started, p.Result.Item)
			cancel() // stop while the first command runs
		}
	}}
	t0 := time.Now()
	rep := Run(ctx, bc, opts)
	if took := time.Since(t0); took > 10*time.Second {
		t.Fatalf("stopping took %v", took)
	}
	if !rep.Stopped || rep.Outcome != NotRun || rep.Passed() {
		t.Fatalf("stopped %v outcome %s", rep.Stopped, rep.Outcome)
	}
	wantOutcome(t, rep, map[string]Outcome{"1": NotRun, "2": NotRun})
	if len(started) != 1 {
		t.Errorf("checks started after the stop: %v", started)
	}
	if rep.Counts.NotRun != 2 {
		t.Errorf("counts %+v", rep.Counts)
	}
}

func TestJudgedItems(t *testing.T) {
	rep, _ := run(t, "judged", Options{})
	wantOutcome(t, rep, map[string]Outcome{
		"1": NotCheckable, // an assertion: never run, never failed
		"2": NotCheckable, "2.1": NotCheckable, "2.2": NotCheckable,
		"3": Fail, "3.1": Fail, "3.2": NotCheckable,
		"4": Pass,
	})
	if rep.Outcome != Fail {
		t.Errorf("outcome %s, want fail (the any_of has no passing alternative)", rep.Outcome)
	}
	if r := at(t, rep, "3"); !strings.Contains(r.Reason, "judged by a person could still pass it") {
		t.Errorf("any_of reason %q", r.Reason)
	}
	j := rep.JSON()
	want := []string{"Manual QA (type: assertion)", "Readability (type: quality)", "Design (type: quality)", "Review (type: quality)"}
	if strings.Join(j.Skipped, "|") != strings.Join(want, "|") {
		t.Errorf("skipped %q, want %q", j.Skipped, want)
	}
	if j.Checklist[0].Passed != nil || !j.Checklist[0].Skipped {
		t.Errorf("an assertion in JSON: passed %v skipped %v", j.Checklist[0].Passed, j.Checklist[0].Skipped)
	}
}

func TestNothingCheckable(t *testing.T) {
	rep, _ := run(t, "legacy-assertion", Options{})
	if rep.Outcome != NotCheckable || rep.Passed() || !rep.Legacy {
		t.Fatalf("outcome %s passed %v legacy %v: nothing checked is not a pass", rep.Outcome, rep.Passed(), rep.Legacy)
	}
	bc := model.BaseCase{IsChecklist: true, Checklist: []model.ChecklistItem{{Item: "empty", IsGroup: true}}}
	if rep := Run(context.Background(), bc, Options{}); rep.Outcome != NotCheckable {
		t.Errorf("an empty group alone: %s, want not_checkable", rep.Outcome)
	}
}

func TestLegacy(t *testing.T) {
	rep, _ := run(t, "legacy", Options{})
	if !rep.Legacy || rep.Outcome != Pass || len(rep.Items) != 1 {
		t.Fatalf("legacy %v outcome %s items %d", rep.Legacy, rep.Outcome, len(rep.Items))
	}
	r := rep.Items[0]
	if r.Item != "base_case" || r.Pos() != "1" || r.Stdout.Text != "present\n" {
		t.Errorf("item %q at %s, stdout %q", r.Item, r.Pos(), r.Stdout.Text)
	}
	if j := rep.JSON(); j.Format != "legacy" || j.Checklist[0].Item != "base_case" {
		t.Errorf("JSON format %q item %q", j.Format, j.Checklist[0].Item)
	}
}

func TestEdgeValues(t *testing.T) {
	rep, _ := run(t, "edge", Options{})
	wantOutcome(t, rep, map[string]Outcome{"1": Fail, "2": Fail, "3": Fail, "4": Fail, "5": Pass})
	if r := at(t, rep, "1"); r.Ran || !strings.Contains(r.Reason, "empty") {
		t.Errorf("an empty command ran (%v) or says %q", r.Ran, r.Reason)
	}
	if got := at(t, rep, "3").Evidence; got != "Unknown check type: http" {
		t.Errorf("unknown type: %q", got)
	}
	if got := at(t, rep, "4").Evidence; got != "No check, group, or any_of defined" {
		t.Errorf("no check: %q", got)
	}
}

func TestGlobMatchesAsPython(t *testing.T) {
	// Counts as Python 3's glob.glob(pattern, recursive=True) gives them on
	// the glob fixture (TestScriptGoldens in cmd/aot-tui compares the whole
	// run with the loop's script).
	dir, _ := project(t, "glob")
	for pattern, want := range map[string]int{
		"*.txt": 2, "**/*.txt": 4, ".*": 3, "notes/**": 4, "**": 12,
		"data/file[0-9].cs?": 2, "data/file[!0-9].*": 1, "data/?.csv": 1, "data/*[x]*.csv": 1,
		"*/": 2, "notes/*/d.txt": 1, "*.log": 0, "docs/*.md": 0, "missing/**": 0,
		"data/file[]*": 0, "data/[*": 1, "data/file[z-a]*": 0, "data/file[!]*": 0,
		"**/": 3, "*/*/*.txt": 1, ".secret/*": 1, "**/e.txt": 0,
	} {
		g := &globber{ctx: context.Background(), dir: dir}
		got, err := g.glob(pattern)
		if err != nil {
			t.Fatalf("%s: %v", pattern, err)
		}
		if len(got) != want {
			t.Errorf("%s: %d matches %q, want %d", pattern, len(got), got, want)
		}
	}
}

func TestFnmatch(t *testing.T) {
	for _, tt := range []struct {
		pat, name string
		want      bool
	}{
		{"*.go", "main.go", true}, {"*.go", "main.go.orig", false}, {"?", "ab", false},
		{"[abc]x", "bx", true}, {"[!abc]x", "bx", false}, {"[!abc]x", "dx", true},
		{"[a-c]", "b", true}, {"[]]", "]", true}, {"[!]]", "]", false}, {"[-a]", "-", true},
		{"[a-]", "-", true}, {"x[", "x[", true}, {"*", ".hidden", true}, {"a*b*c", "aXbYc", true},
		{"[z-a]", "m", false}, {"é?", "éa", true}, {"a.b", "aXb", false}, {"[!]", "q", false}, {"[!]", "[!]", true},
	} {
		re, err := fnmatchRegexp(tt.pat)
		if err != nil {
			t.Fatalf("%q: %v", tt.pat, err)
		}
		if got := re.MatchString(tt.name); got != tt.want {
			t.Errorf("fnmatch(%q, %q) = %v, want %v", tt.name, tt.pat, got, tt.want)
		}
	}
}

func TestOutputIsCappedInTheMiddle(t *testing.T) {
	needPOSIXShell(t)
	bc := model.BaseCase{Legacy: &model.Check{Type: model.CheckCommand,
		Value: "echo FIRST; i=0; while [ $i -lt 3000 ]; do echo 0123456789012345678901234567890123456789; i=$((i+1)); done; echo LAST"}}
	rep := Run(context.Background(), bc, Options{Dir: t.TempDir(), OutputLimit: 4096})
	out := rep.Items[0].Stdout
	if len(out.Text) != 4096 || out.Omitted <= 0 || out.Bytes != int64(len(out.Text))+out.Omitted {
		t.Fatalf("kept %d bytes of %d, omitted %d", len(out.Text), out.Bytes, out.Omitted)
	}
	if !strings.HasPrefix(out.Text, "FIRST\n") || !strings.HasSuffix(out.Text, "LAST\n") || out.Cut != 2048 {
		t.Errorf("head or tail lost (cut at %d)", out.Cut)
	}
}

func TestPlanAndProgress(t *testing.T) {
	dir, bc := project(t, "pass")
	plan := Plan(bc)
	var got []string
	for _, p := range plan {
		got = append(got, PosString(p.Position)+" "+string(p.Type))
	}
	want := "1.1 command|1.2 command|1.3 file|1.4 file|2.1 file|2.2 file|3 not_file|4 not_file|5 not_command|6.1.1 command|6.1.2 command"
	if strings.Join(got, "|") != want {
		t.Errorf("plan %s\nwant %s", strings.Join(got, "|"), want)
	}
	cmds := Commands(bc)
	if len(cmds) != 5 || cmds[4].Value != "test -d src" {
		t.Errorf("commands %+v", cmds)
	}
	var events []Progress
	Run(context.Background(), bc, Options{Dir: dir, Progress: func(p Progress) { events = append(events, p) }})
	if len(events) != 2*len(plan) {
		t.Fatalf("%d progress events for %d checks", len(events), len(plan))
	}
	for i, e := range events {
		if e.Index != i/2 || e.Done != (i%2 == 1) || e.Total != len(plan) || e.Result.Pos() != PosString(plan[i/2].Position) {
			t.Errorf("event %d: %+v", i, e)
		}
	}
}

// TestJudgedAndChecksKey: Judged counts the assertion and quality checks
// wherever they are nested (and a legacy one), no others; ChecksKey
// changes with a check's value and not with its line.
func TestJudgedAndChecksKey(t *testing.T) {
	check := func(typ model.CheckType, v string) *model.Check { return &model.Check{Type: typ, Value: v} }
	bc := model.BaseCase{IsChecklist: true, Checklist: []model.ChecklistItem{
		{Item: "tests", Check: check(model.CheckCommand, "go test ./...")},
		{Item: "reviewed", Check: check(model.CheckAssertion, "a person read it")},
		{Item: "group", IsGroup: true, Group: []model.ChecklistItem{
			{Item: "docs", IsAnyOf: true, AnyOf: []model.ChecklistItem{
				{Item: "readme", Check: check(model.CheckQuality, "clear")},
				{Item: "file", Check: check(model.CheckFile, "README.md")},
			}},
		}},
	}}
	if n := Judged(bc); n != 2 {
		t.Fatalf("Judged = %d, want 2", n)
	}
	if n := Judged(model.BaseCase{Legacy: check(model.CheckQuality, "good")}); n != 1 {
		t.Fatalf("Judged of a legacy quality check = %d, want 1", n)
	}
	moved := bc
	moved.Checklist = append([]model.ChecklistItem(nil), bc.Checklist...)
	moved.Checklist[0].Check = &model.Check{Type: model.CheckCommand, Value: "go test ./...", Line: 40}
	if ChecksKey(moved) != ChecksKey(bc) {
		t.Fatal("ChecksKey changed with a check's line")
	}
	moved.Checklist[0].Check = check(model.CheckCommand, "go vet ./...")
	if ChecksKey(moved) == ChecksKey(bc) {
		t.Fatal("ChecksKey did not change with a check's value")
	}
}

// TestOutputTail: the last lines (CRLF as LF, no final empty line), the
// heading saying what was left out, nothing for blank output.
func TestOutputTail(t *testing.T) {
	o := Output{Text: "a\r\nb\nc\nd\n", Omitted: 7}
	head, lines := o.Tail("stdout", 2)
	if head != "stdout (last 2 of 4 lines) (7 bytes cut from the middle)" || strings.Join(lines, "|") != "c|d" {
		t.Fatalf("%q %q", head, lines)
	}
	if head, lines := (Output{Text: "x\r\n"}).Tail("stderr", 5); head != "stderr" || strings.Join(lines, "|") != "x" {
		t.Fatalf("%q %q", head, lines)
	}
	if _, lines := (Output{Text: " \n\t"}).Tail("stderr", 5); lines != nil {
		t.Fatalf("blank output has lines %q", lines)
	}
}
