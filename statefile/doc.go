// Package statefile connects a loop's state file on disk with the model:
// it finds the file (Discover), reads and parses it into a Document and
// its model.State (ReadFile, Load, Parse; the phase loop's JSON with
// ParsePhaseLoop), watches it for changes (Watch, StartWatch), writes
// corrections back as text edits that keep every other byte (ApplyEdits),
// atomically and re-planning when another writer got there first (Update,
// Restore), and shows what changed (UnifiedDiff). Problems that stop a
// read or a write are *Error values naming the file and line.
//
// The YAML work is done elsewhere: fastyaml parses the frontmatter into
// yaml.v3's node tree, yamledit rewrites it in place, and yamltext holds
// the character and line facts the three share.
package statefile
