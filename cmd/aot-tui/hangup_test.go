package main

import (
	"errors"
	"io"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

type idleModel struct{ panicOn string }

func (m idleModel) Init() tea.Cmd { return nil }
func (m idleModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && m.panicOn != "" && k.String() == m.panicOn {
		panic("boom")
	}
	return m, nil
}
func (m idleModel) View() tea.View { return tea.NewView("idle") }

func runProgram(t *testing.T, m tea.Model, during func(p *tea.Program)) (err error, hungUp bool) {
	t.Helper()
	p := tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithoutSignalHandler())
	stop, hung := onHangup(p)
	defer stop()
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	time.Sleep(100 * time.Millisecond) // let the program start
	during(p)
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the program did not end")
	}
	return err, hung()
}

// SIGHUP ends the program as a hangup; any other failure, a panic
// included, is still reported by runTUI (it is not taken for a hangup).
func TestHangupIsTheOnlyKillTakenAsNormal(t *testing.T) {
	if noHangup != "" {
		t.Skip(noHangup)
	}
	err, hung := runProgram(t, idleModel{}, func(*tea.Program) {
		if err := hangupSelf(); err != nil {
			t.Fatal(err)
		}
	})
	if !hung || !errors.Is(err, tea.ErrProgramKilled) {
		t.Fatalf("after SIGHUP: hungUp %v, err %v", hung, err)
	}
	// The terminal says so again while the cleanup runs: this process
	// (the test's) must live through it.
	if err := hangupSelf(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	err, hung = runProgram(t, idleModel{panicOn: "x"}, func(p *tea.Program) {
		p.Send(tea.KeyPressMsg{Code: 'x', Text: "x"})
	})
	if hung || err == nil {
		t.Fatalf("a panic must not pass for a hangup: hungUp %v, err %v", hung, err)
	}
}
