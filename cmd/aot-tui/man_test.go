package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/internal/testenv"
	"github.com/spf13/cobra"
)

// pageCommands is every command help lists (the completion command
// included, help and hidden commands not), as writeManTree walks them.
func pageCommands() []*cobra.Command {
	root := newRootCmd(io.Discard, io.Discard)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var all []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		all = append(all, c)
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
				walk(sub)
			}
		}
	}
	walk(root)
	return all
}

func pageName(c *cobra.Command) string { return strings.ReplaceAll(c.CommandPath(), " ", "-") }

// TestManPages: `aot-tui man --dir DIR` writes one roff page per command,
// each named for it, linked to its parent and children, in ASCII; groff
// reads every one without a warning; `aot-tui man` prints aot-tui(1).
// The pages name no path of the machine they were made on.
func TestManPages(t *testing.T) {
	bin := binary(t)
	home := t.TempDir()
	dir := filepath.Join(t.TempDir(), "man")
	cmd := exec.Command(bin, "man", "--dir", dir)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("man --dir: %v\n%s", err, out)
	}
	var want, got []string
	for _, c := range pageCommands() {
		want = append(want, pageName(c)+".1")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		got = append(got, e.Name())
	}
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("pages:\n got %v\nwant %v", got, want)
	}
	for _, c := range pageCommands() {
		name := pageName(c)
		data, err := os.ReadFile(filepath.Join(dir, name+".1"))
		if err != nil {
			t.Fatal(err)
		}
		page := string(data)
		for i := 0; i < len(page); i++ {
			if page[i] >= 0x80 {
				t.Fatalf("%s.1 is not ASCII at byte %d", name, i)
			}
		}
		for _, w := range []string{
			`.TH "` + strings.ToUpper(name) + `" "1" `, ".SH NAME\n" + name + " - " + c.Short + "\n",
			".SH SYNOPSIS\n", ".SH DESCRIPTION\n",
		} {
			if !strings.Contains(page, w) {
				t.Errorf("%s.1 lacks %q", name, w)
			}
		}
		var links []*cobra.Command
		if c.HasParent() {
			links = append(links, c.Parent())
		}
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
				links = append(links, sub)
			}
		}
		for _, l := range links {
			if !strings.Contains(page, `\fB`+pageName(l)+`(1)\fP`) {
				t.Errorf("%s.1 does not link to %s(1)", name, pageName(l))
			}
		}
		if strings.Contains(page, home) {
			t.Errorf("%s.1 names the home directory it was made in", name)
		}
	}
	root, err := os.ReadFile(filepath.Join(dir, "aot-tui.1"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(root), "$XDG_CONFIG_HOME/aot-tui/keys.yaml, else ~/.config/aot-tui/keys.yaml") {
		t.Errorf("aot-tui.1 does not say where the keys file is on any machine:\n%s", root)
	}
	cmd = exec.Command(bin, "man")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME=")
	if out, err := cmd.Output(); err != nil || string(out) != string(root) {
		t.Fatalf("man: %v; its page differs from aot-tui.1 (%d bytes, want %d)", err, len(out), len(root))
	}

	groff := testenv.Need(t, "groff")
	args := []string{"-man", "-Tutf8", "-ww", "-z"}
	for _, c := range pageCommands() {
		args = append(args, filepath.Join(dir, pageName(c)+".1"))
	}
	if out, err := exec.Command(groff, args...).CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("groff: %v\n%s", err, out)
	}
}

// TestManPagesKeepTheHelpText: a page says what --help says. The help
// texts are plain text, not Markdown: "A<n>" stays (a Markdown renderer
// took it for HTML and dropped it), an indented example or table keeps
// its lines (it was filled into a paragraph), a backslash and a line
// starting with a dot are text; the page dates by SOURCE_DATE_EPOCH when
// the build has no revision date.
func TestManPagesKeepTheHelpText(t *testing.T) {
	bin := binary(t)
	dir := filepath.Join(t.TempDir(), "man")
	cmd := exec.Command(bin, "man", "--dir", dir)
	cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH=1700000000")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("man --dir: %v\n%s", err, out)
	}
	page := func(name string) string {
		data, err := os.ReadFile(filepath.Join(dir, name+".1"))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	for name, want := range map[string][]string{
		"aot-tui-redirect-add-atom": {"Its id is the next free A<n> unless --id is given.\n"},
		// The table of base_case edits, one line each, as --help shows it.
		"aot-tui-redirect-objective": {".nf\n--check POS --type T --value V [--item NAME]   set the check of an item\n--type T --value V ",
			"--remove-item POS                              remove an item\n.fi\n"},
		"aot-tui-notify": {".nf\nnotify:\n  command: [notify-send, --app-name=aot-tui]  # argv, run without a shell\n"},
		// A backslash is roff's escape character: \e prints it.
		"aot-tui-status": {`%LocalAppData%\eaot-tui\ejournals`},
		// Lines starting with a dot would be requests.
		"aot-tui-demo":            {"\n\\&.claude/aot-loop-state.md and opens the TUI on it."},
		"aot-tui-completion-bash": {".SS Linux:\n", ".nf\nsource <(aot-tui completion bash)\n.fi\n"},
	} {
		p := page(name)
		for _, w := range want {
			if !strings.Contains(p, w) {
				t.Errorf("%s.1 lacks %q:\n%s", name, w, p)
			}
		}
	}
	// The binary's revision date, when its build knows one, comes first.
	want := `"Nov 2023"`
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`, (\d{4}-\d{2}-\d{2}),`).FindSubmatch(out); m != nil {
		day, _ := time.Parse("2006-01-02", string(m[1]))
		want = `"` + day.Format("Jan 2006") + `"`
	}
	if th, _, _ := strings.Cut(page("aot-tui"), "\n.SH"); !strings.Contains(th, want) {
		t.Errorf("aot-tui.1 is not dated %s (SOURCE_DATE_EPOCH, or the revision's date):\n%s", want, th)
	}
}

// TestCompletionBash: the script of `aot-tui completion bash` completes
// commands, subcommands and flags in bash, through the binary on PATH.
func TestCompletionBash(t *testing.T) {
	bash := testenv.Need(t, "bash")
	bin := binary(t)
	script := filepath.Join(t.TempDir(), "aot-tui.bash")
	out, err := exec.Command(bin, "completion", "bash").Output()
	if err != nil {
		t.Fatalf("completion bash: %v", err)
	}
	if err := os.WriteFile(script, out, 0o644); err != nil {
		t.Fatal(err)
	}
	// _get_comp_words_by_ref stands in for the bash-completion package's.
	const complete = `_get_comp_words_by_ref() { cur="${COMP_WORDS[COMP_CWORD]}"; prev="${COMP_WORDS[COMP_CWORD-1]}"; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
source "$1"
c() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=(); __start_aot-tui 2>/dev/null; echo "$* => ${COMPREPLY[*]}"; }
c aot-tui sta
c aot-tui redirect a
c aot-tui status --js
c aot-tui ver
`
	cmd := exec.Command(bash, "-c", complete, "bash", script)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, got)
	}
	want := "aot-tui sta => status\naot-tui redirect a => add-atom\naot-tui status --js => --json\naot-tui ver => verify version\n"
	if string(got) != want {
		t.Fatalf("completions:\n%s\nwant:\n%s", got, want)
	}
	for shell, head := range map[string]string{"zsh": "#compdef aot-tui", "fish": "# fish completion for aot-tui", "powershell": "# powershell completion for aot-tui"} {
		out, err := exec.Command(bin, "completion", shell).Output()
		if err != nil || !strings.HasPrefix(string(out), head) {
			t.Errorf("completion %s: %v, starts %q", shell, err, string(out[:min(len(out), 60)]))
		}
	}
}

// Without a revision date (a test binary carries none), the pages are
// dated by SOURCE_DATE_EPOCH, and an epoch that is not a number is named.
func TestManDateFromSourceDateEpoch(t *testing.T) {
	if v := currentVersion().Time; v != "" {
		t.Fatalf("the test binary carries a revision date %q: this test cannot reach SOURCE_DATE_EPOCH", v)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	if got, err := manDate(); err != nil || !got.Equal(time.Unix(1700000000, 0)) {
		t.Fatalf("manDate with SOURCE_DATE_EPOCH=1700000000: %v, %v; want 2023-11-14 22:13:20 UTC", got, err)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "soon")
	if _, err := manDate(); err == nil || !strings.Contains(err.Error(), `SOURCE_DATE_EPOCH "soon"`) {
		t.Fatalf("manDate with SOURCE_DATE_EPOCH=soon: error %v, want one naming the variable and its value", err)
	}
}
