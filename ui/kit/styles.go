package kit

import (
	"image/color"

	"charm.land/lipgloss/v2"
	"github.com/aot-loop/aot-tui/model"
)

// Styles are every style the UI draws with, built from a semantic palette.
// Status is always glyph + text + colour, so nothing depends on colour alone.
type Styles struct {
	NoColor bool

	Base, Muted, Bold, Accent, Warn, Danger, OK lipgloss.Style

	Title      lipgloss.Style
	TabActive  lipgloss.Style
	Tab        lipgloss.Style
	Selected   lipgloss.Style
	Banner     lipgloss.Style
	BannerBad  lipgloss.Style
	Flag       lipgloss.Style
	Key        lipgloss.Style
	Border     lipgloss.Style
	Executable lipgloss.Style

	atom map[model.AtomStatus]lipgloss.Style
	loop map[model.LoopStatus]lipgloss.Style

	// BarFull and BarEmpty draw meters.
	BarFull, BarEmpty lipgloss.Style
}

// Palette colours (dark and light variants).
type palette struct {
	fg, muted, accent, warn, danger, ok, info, selBg, border color.Color
}

func newPalette(isDark bool) palette {
	ld := lipgloss.LightDark(isDark)
	return palette{
		fg:     ld(lipgloss.Color("#1f2328"), lipgloss.Color("#e6e6e6")),
		muted:  ld(lipgloss.Color("#6e7781"), lipgloss.Color("#8b949e")),
		accent: ld(lipgloss.Color("#8250df"), lipgloss.Color("#c297ff")),
		warn:   ld(lipgloss.Color("#9a6700"), lipgloss.Color("#e3b341")),
		danger: ld(lipgloss.Color("#cf222e"), lipgloss.Color("#ff7b72")),
		ok:     ld(lipgloss.Color("#1a7f37"), lipgloss.Color("#56d364")),
		info:   ld(lipgloss.Color("#0969da"), lipgloss.Color("#79c0ff")),
		selBg:  ld(lipgloss.Color("#ddf4ff"), lipgloss.Color("#30363d")),
		border: ld(lipgloss.Color("#d0d7de"), lipgloss.Color("#484f58")),
	}
}

// NewStyles builds the styles for a dark or light background; noColor drops
// every colour (NO_COLOR) but keeps bold, reverse and glyphs.
func NewStyles(isDark, noColor bool) Styles {
	s := Styles{NoColor: noColor}
	plain := lipgloss.NewStyle()
	if noColor {
		s.Base, s.Muted, s.Accent, s.Warn, s.Danger, s.OK = plain, plain, plain, plain, plain, plain
		s.Bold = plain.Bold(true)
		s.Title = plain.Bold(true)
		s.TabActive = plain.Bold(true).Reverse(true)
		s.Tab = plain
		s.Selected = plain.Reverse(true)
		s.Banner = plain.Reverse(true)
		s.BannerBad = plain.Reverse(true).Bold(true)
		s.Flag = plain.Bold(true).Reverse(true)
		s.Key = plain.Bold(true)
		s.Border = plain
		s.Executable = plain.Bold(true)
		s.BarFull, s.BarEmpty = plain, plain
		s.atom = map[model.AtomStatus]lipgloss.Style{}
		s.loop = map[model.LoopStatus]lipgloss.Style{}
		return s
	}
	p := newPalette(isDark)
	s.Base = plain.Foreground(p.fg)
	s.Muted = plain.Foreground(p.muted)
	s.Bold = plain.Bold(true)
	s.Accent = plain.Foreground(p.accent)
	s.Warn = plain.Foreground(p.warn)
	s.Danger = plain.Foreground(p.danger)
	s.OK = plain.Foreground(p.ok)
	s.Title = plain.Bold(true).Foreground(p.accent)
	s.TabActive = plain.Bold(true).Foreground(p.accent).Underline(true)
	s.Tab = plain.Foreground(p.muted)
	s.Selected = plain.Background(p.selBg).Bold(true)
	s.Banner = plain.Foreground(p.warn).Bold(true)
	s.BannerBad = plain.Foreground(p.danger).Bold(true)
	s.Flag = plain.Bold(true).Foreground(p.warn).Reverse(true)
	s.Key = plain.Bold(true).Foreground(p.accent)
	s.Border = plain.Foreground(p.border)
	s.Executable = plain.Bold(true).Foreground(p.accent)
	s.BarFull = plain.Foreground(p.info)
	s.BarEmpty = plain.Foreground(p.border)
	s.atom = map[model.AtomStatus]lipgloss.Style{
		model.StatusPending:    plain.Foreground(p.muted),
		model.StatusInProgress: plain.Foreground(p.warn).Bold(true),
		model.StatusResolved:   plain.Foreground(p.ok),
	}
	s.loop = map[model.LoopStatus]lipgloss.Style{
		model.LoopPending:   plain.Foreground(p.muted).Bold(true),
		model.LoopRunning:   plain.Foreground(p.info).Bold(true),
		model.LoopStopped:   plain.Foreground(p.danger).Bold(true),
		model.LoopCompleted: plain.Foreground(p.ok).Bold(true),
	}
	return s
}

// Atom returns the style of an atom status (unknown statuses are danger).
func (s Styles) Atom(st model.AtomStatus) lipgloss.Style {
	if x, ok := s.atom[st]; ok {
		return x
	}
	if s.NoColor {
		return lipgloss.NewStyle()
	}
	return s.Danger
}

// Loop returns the style of a loop status.
func (s Styles) Loop(st model.LoopStatus) lipgloss.Style {
	if x, ok := s.loop[st]; ok {
		return x
	}
	if s.NoColor {
		return lipgloss.NewStyle().Bold(true)
	}
	return s.Danger.Bold(true)
}

// Status is the style of a status line of level lv: info in the accent
// colour, as every footer message was before levels, a success in the
// ok colour, a warning in the warn colour, an error in the danger colour.
// Under NO_COLOR the glyph (Level.Mark) tells them apart.
func (s Styles) Status(lv Level) lipgloss.Style {
	switch lv {
	case Success:
		return s.OK
	case Warn:
		return s.Warn
	case Error:
		return s.Danger
	}
	return s.Accent
}
