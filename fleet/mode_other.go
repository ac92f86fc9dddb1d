//go:build !(darwin || ios || freebsd || netbsd || openbsd || dragonfly)

package fleet

// platformMode: inotify (Linux) and ReadDirectoryChangesW (Windows) watch
// a directory for the price of one watch, so the trees are watched whole.
const platformMode = WatchTrees
