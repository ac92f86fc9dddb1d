//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package agent

// watchDirsDefault: with kqueue every watched directory costs a
// descriptor for each of its entries, and a transcripts directory may
// hold hundreds of sessions: only the files followed are watched, and the
// poll finds new ones.
const watchDirsDefault = false
