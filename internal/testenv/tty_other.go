//go:build !windows

package testenv

// ttyPath is the process's terminal, which go test does not capture.
const ttyPath = "/dev/tty"
