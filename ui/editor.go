package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/ui/kit"
)

// E opens the state file in the person's editor at the selected atom's
// line: the TUI steps aside (tea.ExecProcess) and comes back when the
// editor ends. While it is open the loop is paused as for a form: the
// handshake flag is set before the editor reads the file and cleared when
// it ends (unless the person's own save keeps it, or another form holds
// the pause).

// editorDoneMsg says the editor ended (in its loop's envelope).
type editorDoneMsg struct{ err error }

// editorFor is the person's editor command: $VISUAL, then $EDITOR, then
// the platform's (defaultEditor); nil when none can be found.
func editorFor(getenv func(string) string, look func(string) (string, error)) []string {
	for _, v := range []string{getenv("VISUAL"), getenv("EDITOR"), defaultEditor} {
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		if _, err := look(f[0]); err == nil {
			return f
		}
	}
	return nil
}

// editorArgs is the editor command that opens path at line: "+N path"
// for the editors of the vi and emacs families, nano, micro and most
// others; "path:N" (with -g and --wait for VS Code and its forks) for
// those that take it so.
func editorArgs(editor []string, path string, line int) []string {
	args := append([]string{}, editor...)
	if line < 1 {
		return append(args, path)
	}
	at := path + ":" + strconv.Itoa(line)
	switch strings.TrimSuffix(filepath.Base(editor[0]), ".exe") {
	case "code", "code-insiders", "codium", "cursor", "windsurf":
		if !hasArg(args, "--wait", "-w") {
			args = append(args, "--wait")
		}
		return append(args, "-g", at)
	case "subl", "sublime_text", "zed":
		if !hasArg(args, "--wait", "-w") {
			args = append(args, "--wait")
		}
		return append(args, at)
	case "hx", "helix":
		return append(args, at)
	case "notepad":
		return append(args, path) // no way to name a line
	}
	return append(args, "+"+strconv.Itoa(line), path)
}

func hasArg(args []string, names ...string) bool {
	for _, a := range args {
		for _, n := range names {
			if a == n {
				return true
			}
		}
	}
	return false
}

// editorWhy says why E cannot open an editor at h ("" when it can).
func editorWhy(h here) string {
	switch {
	case h.l == nil || h.l.st == nil:
		return "no state file read yet"
	case h.l.remoteHost != "":
		return "the loop is on " + termtext.Line(h.l.remoteHost) + ": E edits files of this machine"
	case h.l.hist.inPast():
		return "the past is read-only: E edits the file as it is now (esc returns)"
	case h.m.editorCmd == nil:
		return "no editor found: set $VISUAL or $EDITOR"
	}
	return ""
}

// openEditor runs the editor on l's state file at the selected atom's
// line (the graph's selection where it is on screen, else the top).
func (m *Model) openEditor(l *loop) tea.Cmd {
	line := 0
	if a, ok := l.st.Atom(l.graph.sel); ok && l.view == viewGraph {
		line = a.Line
	}
	args := editorArgs(m.editorCmd, l.target.Path, line)
	c := exec.Command(args[0], args[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	// The program runs the editor itself (its message must reach it as
	// it is); what comes back is the loop's.
	run := tea.ExecProcess(c, func(err error) tea.Msg { return l.envelope(editorDoneMsg{err: err}) })
	if l.readOnly {
		// Nothing of ours is written: the person edits as they would
		// without aot-tui.
		return run
	}
	// The flag first, then the editor reads the file.
	m.report(l, kit.Info, "the loop pauses while the editor is open")
	return tea.Sequence(m.runJob(l, nil, l.session.BeginFor("editor")), run)
}

// onEditorDone comes back from the editor: the pause it held is released
// and the footer says how the editor ended.
func (m *Model) onEditorDone(l *loop, msg editorDoneMsg) tea.Cmd {
	var end tea.Cmd
	if !l.readOnly {
		end = m.runJob(l, nil, l.session.End())
	}
	if msg.err != nil {
		m.report(l, kit.Error, "the editor failed: "+termtext.Line(msg.err.Error()))
	} else {
		m.report(l, kit.Info, "back from the editor")
	}
	return end
}
