// Package agent reads what Claude Code records of a loop's sessions — the
// transcripts it writes as JSON lines, and the hook events aot-tui hook
// records — and makes of them what the loop is doing now, whether it waits
// for a person, and what it has used and cost.
//
// Finding: Dirs finds the project's transcript directories under
// ProjectsRoot ($CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects) by
// Claude Code's naming rule (DirName), confirmed by the cwd the
// transcripts record, and by that cwd alone when the rule finds none.
// The sessions written since the loop began are read, with their
// sub-agents' files (<session>/subagents/agent-<id>.jsonl) and the
// sub-agent lines older versions marked isSidechain in the main file.
//
// Reading: ParseLine reads one line tolerantly (a JSON scanner that skips
// what it does not need); lines it cannot read, of types it does not know
// and content blocks of kinds it does not know are skipped and counted
// (Activity.Unrecognised, UnknownTypes, UnknownBlocks), never fatal. The
// transcript format is Claude Code's own and changes between its releases.
//
// Modelling: a Tracker is fed lines and builds, per session and agent,
// the recent steps (tool calls and a short summary of their input), what
// is happening now, the tokens of every API response counted once per
// message id (one response is written as several lines), attributed to
// the atom being worked and the loop's iteration, and an estimated cost
// from a dated price table (Prices). Hook events make NeedsYou exact;
// without them it is inferred from the transcript and says so.
//
// Following: StartFollow reads every file from where it left off, keeps a
// torn last line until its line break comes, starts over when a file is
// replaced or cut short, picks up new sessions and sub-agents, notes a
// directory that disappears, with fsnotify and a stat poll behind it, and
// hands out snapshots (Activity) through a callback, as statefile.Watch
// does. Open reads once.
//
// Safety: every string an Activity holds is sanitised (internal/termtext:
// one line, control and bidi characters escaped) and cut short when the
// Tracker takes it: callers may draw them as they are. Nothing read is
// written anywhere; the hook writes its events only to the user's state
// directory (RecordHook).
package agent
