//go:build darwin

package main

import "golang.org/x/sys/unix"

// exchangeFiles exchanges a and b in one step, for the tests' own loop
// writers (not the code under test).
func exchangeFiles(a, b string) error { return unix.RenamexNp(a, b, unix.RENAME_SWAP) }
