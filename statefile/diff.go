package statefile

import "github.com/aot-loop/aot-tui/textdiff"

// UnifiedDiff returns a unified diff (3 lines of context) between two
// versions of a file, or "" when they are equal: a minimal one at any size
// (textdiff.Unified). Lines keep their endings out of the comparison but CR
// is shown as it matters for CRLF files.
func UnifiedDiff(name string, a, b []byte) string {
	return textdiff.Unified(name, name+" (corrected)", a, b, 3)
}
