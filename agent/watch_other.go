//go:build !(darwin || freebsd || netbsd || openbsd || dragonfly)

package agent

// watchDirsDefault: inotify and ReadDirectoryChangesW watch a directory
// for the cost of one watch: new sessions and sub-agents are seen at once.
const watchDirsDefault = true
