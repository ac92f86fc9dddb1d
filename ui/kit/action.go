package kit

import (
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/internal/termtext"
)

// ActionKind is what an Action asks of whoever holds the component.
type ActionKind int

const (
	// None asks nothing (the Action may still carry a command).
	None ActionKind = iota
	// Close closes the dialog that returned it.
	Close
	// Replace puts Action.Dialog where the dialog that returned it was.
	Replace
	// Quit leaves the program.
	Quit
	// ShowStatus shows Action.Status in the footer of the loop it is for.
	ShowStatus
	// OpenLoop opens the loop whose state file is Action.Loop.
	OpenLoop
	// Back leaves what is on screen for what was before it (a loop opened
	// from the fleet table goes back to the table).
	Back
	// Invoke runs the key action named Action.Name as its key would, at
	// the place the dialog that returned it was opened over (a command
	// palette's choice).
	Invoke
	// Jump selects the atom Action.Atom in the graph (an id as typed: the
	// root finds it as the : prompt always has, or says there is none).
	Jump
)

// Action is a component's answer to a message: a closed set of requests
// that the root carries out. It is a struct with a kind rather than an
// interface per kind because every kind can come with a command to run
// (a dialog that closes still has its write to finish), the zero value is
// "nothing", and the root's one switch over Kind is the whole protocol.
type Action struct {
	Kind ActionKind
	// Dialog is the dialog that replaces the current one (Replace).
	Dialog Dialog
	// Status is the line to show (ShowStatus).
	Status Status
	// Loop is the state file of the loop to open (OpenLoop).
	Loop string
	// Name is the key action to run (Invoke).
	Name string
	// Atom is the atom to select (Jump).
	Atom string
	// Cmd runs whatever the kind.
	Cmd tea.Cmd
}

// Run is the Action that only runs cmd.
func Run(cmd tea.Cmd) Action { return Action{Cmd: cmd} }

// Say is the Action that shows a status line.
func Say(text string, level Level) Action {
	return Action{Kind: ShowStatus, Status: Status{Text: text, Level: level}}
}

// Copy is the Action that puts text on the system clipboard (OSC 52,
// tea.SetClipboard) and says so in the footer: "copied " and what. The
// text is made safe as the screen shows it (termtext.Block): line breaks
// stay, every other control character and escape sequence is written out
// escaped, so a state file cannot send the terminal anything through it.
func Copy(text, what string) Action {
	return Action{Kind: ShowStatus, Status: Status{Text: "copied " + what, Level: Info},
		Cmd: tea.SetClipboard(termtext.Block(text))}
}
