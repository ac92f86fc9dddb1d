//go:build darwin || ios || freebsd || netbsd || openbsd || dragonfly

package fleet

// platformMode: fsnotify works through kqueue here, a descriptor per
// watched directory and per entry in it, so only the loops' .claude
// directories are watched.
const platformMode = WatchClaude
