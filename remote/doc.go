// Package remote reaches loops on other machines the way the person
// already does: through a command they run anyway (ssh with their own
// config, agent, ProxyJump and known_hosts; docker exec; kubectl exec),
// which runs aot-tui on the far side and streams its JSON back. Nothing
// listens on a port and nothing of ours runs a shell: a host's transport
// is a command template turned into argv (Host.Command), host names and
// paths that could smuggle in an option are refused (Host.Check), and a
// stream whose line outgrows its bound is cut off with an error, never
// read into unbounded memory (Run). Link keeps one such stream alive
// across failures, with back-off, and says what state it is in
// (connecting, live, stale, lost, version mismatch). remotes.yaml in the
// config directory names the hosts (LoadFile); ssh://host/dir on the
// command line is a host too (ParseURL).
package remote
