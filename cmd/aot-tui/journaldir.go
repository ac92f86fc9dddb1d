package main

import (
	"path/filepath"
	"strings"

	"github.com/aot-loop/aot-tui/history"
	"github.com/spf13/cobra"
)

// journalDirFlag is --journal-dir: where the TUI keeps its journals, and
// where replay, report and status look for them (besides the journal an
// older aot-tui kept beside the state file, which they read too).
type journalDirFlag struct{ dir string }

// journalDirDefault says where the journals go by default, the same on
// every machine (history.DefaultJournalDir; the help names no path of the
// machine it was made on), in two lines for the commands' long help.
const journalDirDefault = `$XDG_STATE_HOME/aot-tui/journals, else ~/.local/state/aot-tui/journals;
%LocalAppData%\aot-tui\journals on Windows`

func (j *journalDirFlag) register(cmd *cobra.Command, what string) {
	cmd.Flags().StringVar(&j.dir, "journal-dir", "", what+" (default "+strings.ReplaceAll(journalDirDefault, "\n", " ")+")")
}

// resolve is the journal directory: the one given, else the default.
func (j *journalDirFlag) resolve() (string, error) {
	if j.dir != "" {
		return filepath.Abs(j.dir)
	}
	return history.DefaultJournalDir()
}

// recordTo names the journal the TUI records a state file's versions to
// (ui.Options.Journal); without a directory, its error (which says what
// to set) turns the journal off, said in the TUI's footer.
func (j *journalDirFlag) recordTo() func(string) (string, error) {
	dir, err := j.resolve()
	return func(statePath string) (string, error) {
		if err != nil {
			return "", err
		}
		return history.JournalIn(dir, statePath), nil
	}
}

// journals are the journals of the state file at statePath to read: the
// one in the journal directory, and the one an older aot-tui kept beside
// the file (alone when there is no journal directory).
func (j *journalDirFlag) journals(statePath string) []string {
	dir, err := j.resolve()
	if err != nil {
		dir = ""
	}
	return history.JournalsOf(dir, statePath)
}
