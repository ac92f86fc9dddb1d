package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/aot-loop/aot-tui/scripts/internal/tmuxrun"
)

// bareModel is the least a Bubble Tea program can be: a fixed screen in
// the alternate screen, no clock, quit on q. What it costs while nothing
// happens is Bubble Tea's own (its 60 Hz frame ticker) and the Go
// runtime's: the floor under aot-tui's idle figures.
type bareModel struct{ screen string }

func (m bareModel) Init() tea.Cmd { return nil }

func (m bareModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "q" {
		return m, tea.Quit
	}
	return m, nil
}

func (m bareModel) View() tea.View {
	v := tea.NewView(m.screen)
	v.AltScreen = true
	return v
}

// bareFPS is -fps: the bare program's frame rate (0: Bubble Tea's default).
var bareFPS int

// runBare runs the bare program on one processor, as aot-tui runs.
func runBare() {
	runtime.GOMAXPROCS(1)
	var b strings.Builder
	b.WriteString("ready\n")
	for i := 1; i < 69; i++ {
		fmt.Fprintf(&b, "%3d %s\n", i, strings.Repeat("text of a row ", 13))
	}
	var opts []tea.ProgramOption
	if bareFPS > 0 {
		opts = append(opts, tea.WithFPS(bareFPS))
	}
	if _, err := tea.NewProgram(bareModel{screen: strings.TrimSuffix(b.String(), "\n")}, opts...).Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// measureFloor runs this command with -bare in a 200×70 tmux pane and
// prints its CPU over idle, from 3 s after it showed its screen.
func measureFloor(idle time.Duration) {
	self, err := os.Executable()
	if err != nil {
		fail(err.Error())
	}
	s := tmuxrun.Start("fleetperf-floor", 200, 70, "NO_COLOR=1 exec "+self+" -bare -fps "+strconv.Itoa(bareFPS))
	defer s.Stop()
	if !s.WaitFor("ready", 30*time.Second, 50*time.Millisecond) {
		fail("fleetperf: the bare program never showed its screen:\n" + s.Capture())
	}
	pid := s.PID()
	time.Sleep(3 * time.Second)
	a, t0 := tmuxrun.CPUTicks(pid), time.Now()
	time.Sleep(idle)
	b, el := tmuxrun.CPUTicks(pid), time.Since(t0)
	cpu := float64(b-a) / tmuxrun.UserHZ / el.Seconds() * 100
	fmt.Printf("| the floor: a bare Bubble Tea program, fixed screen | — | — | %.2f %% | — | — | — | — |\n", cpu)
}
