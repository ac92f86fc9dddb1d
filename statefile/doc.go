// Package statefile connects a loop's state file on disk with the model:
// it finds the file (Discover), reads and parses it into a Document and
// its model.State (ReadFile, Load, Parse; the phase loop's JSON with
// ParsePhaseLoop) — regular files only, never with an open that could
// block (OpenRegular) — along with what the loop's own line-based tools
// read in the same bytes (internal/looptools); watches it for changes
// (Watch, StartWatch; Tracker for a caller with its own notifications);
// writes corrections back as text edits that keep every other byte
// (ApplyEdits), atomically — an exchange where the system has one, else a
// rename that puts back a loop write it replaced — keeping the file's
// owner, group and mode, and re-planning when another writer got there
// first (Update, Merge); holds the leases by which aot-tui
// processes share the redirect_requested pause (LockPauses); and shows
// what changed (UnifiedDiff).
//
// Problems that stop a read are *Error values naming the file and line,
// or *OddFileError for a path that holds no regular file; a write is
// refused with a *NotWritableError (read-only, an owner it could not
// keep) or a *model.Refusal (the correction breaks a rule), and ends with
// an error wrapping ErrConflict when the file kept changing or a loop
// write had to be kept beside it.
//
// The YAML work is done elsewhere: fastyaml parses the frontmatter into
// yaml.v3's node tree, yamledit rewrites it in place, and yamltext holds
// the character and line facts the three share.
package statefile
