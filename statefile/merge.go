package statefile

import "github.com/aot-loop/aot-tui/textdiff"

// mergeLines merges the change base→theirs into ours (three-way, by
// lines; see textdiff.Merge3). ok is false when the two changes touch the
// same lines.
func mergeLines(base, ours, theirs []byte) ([]byte, bool) {
	merged, conflicts := textdiff.Merge3(base, ours, theirs)
	return merged, len(conflicts) == 0
}
