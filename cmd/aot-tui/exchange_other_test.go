//go:build !linux && !darwin

package main

import (
	"errors"
	"runtime"
)

// exchangeFiles: this system has no exchange (the tests that need one for
// their own writers skip).
func exchangeFiles(a, b string) error {
	return errors.New("no atomic exchange on " + runtime.GOOS)
}
