// Package importrules has no code: its test holds the rules of which
// package may depend on which (as `go list` reports the dependencies), so
// that a layer cannot start importing one above it unnoticed.
package importrules
