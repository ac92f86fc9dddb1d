//go:build windows

package ui

// defaultEditor is the editor E runs when neither $VISUAL nor $EDITOR
// names one.
const defaultEditor = "notepad"
