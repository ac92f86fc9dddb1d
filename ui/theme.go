package ui

import "github.com/aot-loop/aot-tui/ui/kit"

// Styles are the styles the UI draws with (kit.Styles: a component gets
// them in its kit.Context).
type Styles = kit.Styles

// NewStyles builds the styles for a dark or light background (see
// kit.NewStyles).
func NewStyles(isDark, noColor bool) Styles { return kit.NewStyles(isDark, noColor) }
