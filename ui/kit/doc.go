// Package kit is the contract between the TUI's root model and its
// components (views, dialogs, the fleet table): what a component is given
// (a Context), what it gives back (Action values), and how a key is
// declared once (Binding) so that dispatch, the help screen, greyed-out
// keys and the keys file all come from the same declaration.
//
// kit imports nothing of ui; ui and its feature packages import kit.
package kit
