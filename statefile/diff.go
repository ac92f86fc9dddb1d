package statefile

import "github.com/aot-loop/aot-tui/textdiff"

// UnifiedDiff returns a unified diff (3 lines of context) between two
// versions of a file, or "" when they are equal: a minimal one at any size,
// its changes placed to read as whole entries (textdiff.UnifiedAligned: an
// added corrections[] entry shows as the entry, not as the previous entry's
// last line and most of the new one). Lines keep their endings out of the
// comparison but CR is shown as it matters for CRLF files.
func UnifiedDiff(name string, a, b []byte) string {
	return textdiff.UnifiedAligned(name, name+" (corrected)", a, b, 3)
}
