package ui

import (
	"bytes"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// withModel runs fn on f's model on the program's goroutine.
func (f *flow) withModel(fn func(*Model)) {
	f.t.Helper()
	done := make(chan struct{})
	f.tm.Send(modelReq{fn: fn, done: done})
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		f.t.Fatal("the program did not answer")
	}
}

// riskyTime sets how long after a write a correction counts as in its
// risky time (an hour: the test does not race the clock; zero: never).
func (f *flow) riskyTime(d time.Duration) {
	f.withModel(func(m *Model) { m.cur.session.RiskyTime = d })
}

// applyConstraints applies the constraints correction through its form.
func (f *flow) applyConstraints() {
	f.t.Helper()
	before := f.file()
	f.constraintsTo30()
	f.waitFor("preview:", "enter apply")
	f.keys("enter")
	f.waitFor("recorded in corrections")
	if bytes.Equal(f.file(), before) {
		f.t.Fatal("the correction was not written")
	}
}

func (f *flow) quits() {
	f.t.Helper()
	f.tm.WaitFinished(f.t, teatest.WithFinalTimeout(10*time.Second))
}

const quitWarned = "⚠ 1 correction, written "

// q right after a correction, while a loop write over it would go unseen
// once the TUI has quit: q warns in the footer and does not quit; q again
// quits.
func TestQuitWarnsWhileACorrectionIsInItsRiskyTime(t *testing.T) {
	f := startRedirectFlow(t)
	f.riskyTime(time.Hour)
	f.applyConstraints()
	f.keys("q")
	f.waitFor(quitWarned, " s ago, is still guarded against loop writes: q again quits, or wait")
	f.keys("q")
	f.quits()
}

// Once no correction is in its risky time, or with none written, q quits
// at once; ctrl+c always does.
func TestQuitAtOnceWithoutARiskyCorrection(t *testing.T) {
	t.Run("past its risky time", func(t *testing.T) {
		f := startRedirectFlow(t)
		f.riskyTime(0)
		f.applyConstraints()
		f.keys("q")
		f.quits()
	})
	t.Run("no correction", func(t *testing.T) {
		f := startRedirectFlow(t)
		f.keys("q")
		f.quits()
	})
	t.Run("ctrl+c", func(t *testing.T) {
		f := startRedirectFlow(t)
		f.riskyTime(time.Hour)
		f.applyConstraints()
		f.tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
		f.quits()
	})
}
