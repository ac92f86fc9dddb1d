package statefile

import "bytes"

// mergeLines merges the change base→theirs into ours (three-way, by
// lines). ok is false when the two changes touch the same lines.
func mergeLines(base, ours, theirs []byte) ([]byte, bool) {
	switch {
	case bytes.Equal(theirs, base), bytes.Equal(ours, theirs):
		return ours, true
	case bytes.Equal(ours, base):
		return theirs, true
	}
	return nil, false // TODO(textdiff): the line merge
}
