//go:build unix

package main

import (
	"os"
	"syscall"
)

// noHangup is why hangupSelf cannot work here ("": it does).
const noHangup = ""

// hangupSelf sends this process SIGHUP, as a terminal that goes away does.
func hangupSelf() error { return syscall.Kill(os.Getpid(), syscall.SIGHUP) }
