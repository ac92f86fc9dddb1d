package ui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"go.yaml.in/yaml/v3"
)

// Where a key is active: a key may mean one thing in a view and another in
// a dialog, never two things in the same place.
const (
	ctxView    = 1 << iota // the views (global, view and write keys)
	ctxPreview             // the preview dialog
	ctxMenu                // the redirect menu (its letters are the write keys)
	ctxStale               // the stale-flag question
	ctxHelp                // the help screen
	ctxPrompt              // the / and : prompts
	ctxFleet               // the fleet table (aot-tui --scan)
)

// keyAction is a rebindable action: its name in a keys file, its binding
// in a KeyMap and where it is active.
type keyAction struct {
	name string
	get  func(*KeyMap) *key.Binding
	ctx  int
}

// keyActions lists every action of KeyMap, in the order `aot-tui keys`
// prints them.
var keyActions = func() []keyAction {
	v, p, mn, st, h, pr := ctxView, ctxPreview, ctxMenu, ctxStale, ctxHelp, ctxPrompt
	a := []keyAction{
		{"quit", func(k *KeyMap) *key.Binding { return &k.Quit }, v | st | h},
		{"force_quit", func(k *KeyMap) *key.Binding { return &k.ForceQuit }, v | p | mn | st | h | pr},
		{"help", func(k *KeyMap) *key.Binding { return &k.Help }, v | h},
		{"next_view", func(k *KeyMap) *key.Binding { return &k.NextView }, v},
		{"prev_view", func(k *KeyMap) *key.Binding { return &k.PrevView }, v},
		{"filter", func(k *KeyMap) *key.Binding { return &k.Filter }, v},
		{"back", func(k *KeyMap) *key.Binding { return &k.Back }, v | mn | h | pr},
		{"submit", func(k *KeyMap) *key.Binding { return &k.Submit }, pr},
		{"next_loop", func(k *KeyMap) *key.Binding { return &k.NextLoop }, v},
		{"prev_loop", func(k *KeyMap) *key.Binding { return &k.PrevLoop }, v},
		{"up", func(k *KeyMap) *key.Binding { return &k.Up }, v | p | h},
		{"down", func(k *KeyMap) *key.Binding { return &k.Down }, v | p | h},
		{"page_up", func(k *KeyMap) *key.Binding { return &k.PageUp }, v | p},
		{"page_down", func(k *KeyMap) *key.Binding { return &k.PageDown }, v | p},
		{"top", func(k *KeyMap) *key.Binding { return &k.Top }, v | p},
		{"bottom", func(k *KeyMap) *key.Binding { return &k.Bottom }, v | p},
		{"left", func(k *KeyMap) *key.Binding { return &k.Left }, v},
		{"right", func(k *KeyMap) *key.Binding { return &k.Right }, v},
		{"to_dependency", func(k *KeyMap) *key.Binding { return &k.Dependency }, v},
		{"to_dependent", func(k *KeyMap) *key.Binding { return &k.Dependent }, v},
		{"details", func(k *KeyMap) *key.Binding { return &k.Details }, v},
		{"follow", func(k *KeyMap) *key.Binding { return &k.Follow }, v},
		{"details_down", func(k *KeyMap) *key.Binding { return &k.DetailsDown }, v},
		{"details_up", func(k *KeyMap) *key.Binding { return &k.DetailsUp }, v},
		{"pan_left", func(k *KeyMap) *key.Binding { return &k.PanLeft }, v},
		{"pan_right", func(k *KeyMap) *key.Binding { return &k.PanRight }, v},
		{"orientation", func(k *KeyMap) *key.Binding { return &k.Orientation }, v},
		{"collapse", func(k *KeyMap) *key.Binding { return &k.Collapse }, v},
		{"collapse_resolved", func(k *KeyMap) *key.Binding { return &k.CollapseResolved }, v},
		{"jump", func(k *KeyMap) *key.Binding { return &k.Jump }, v},
		{"toggle_layout", func(k *KeyMap) *key.Binding { return &k.ToggleLayout }, v},
		{"minimap", func(k *KeyMap) *key.Binding { return &k.Minimap }, v},
		{"redirect", func(k *KeyMap) *key.Binding { return &k.Redirect }, v},
		{"add_atom", func(k *KeyMap) *key.Binding { return &k.AddAtom }, v | mn},
		{"delete_atom", func(k *KeyMap) *key.Binding { return &k.DeleteAtom }, v | mn},
		{"force_or", func(k *KeyMap) *key.Binding { return &k.ForceOR }, v | mn},
		{"constraints", func(k *KeyMap) *key.Binding { return &k.Constraints }, v | mn},
		{"objective", func(k *KeyMap) *key.Binding { return &k.Objective }, v | mn},
		{"override_binding", func(k *KeyMap) *key.Binding { return &k.Binding }, v | mn},
		{"stop", func(k *KeyMap) *key.Binding { return &k.Stop }, v | mn},
		{"undo", func(k *KeyMap) *key.Binding { return &k.Undo }, v},
		{"apply", func(k *KeyMap) *key.Binding { return &k.Apply }, p},
		{"edit", func(k *KeyMap) *key.Binding { return &k.Edit }, p},
		{"cancel", func(k *KeyMap) *key.Binding { return &k.Cancel }, p},
		{"interrupt", func(k *KeyMap) *key.Binding { return &k.Interrupt }, p},
		{"yes", func(k *KeyMap) *key.Binding { return &k.Yes }, st},
		{"no", func(k *KeyMap) *key.Binding { return &k.No }, st},
		// verify's confirmation and progress boxes take the preview's keys.
		{"verify", func(k *KeyMap) *key.Binding { return &k.Verify }, v},
		{"older_version", func(k *KeyMap) *key.Binding { return &k.OlderVersion }, v},
		{"newer_version", func(k *KeyMap) *key.Binding { return &k.NewerVersion }, v},
		{"prev_change", func(k *KeyMap) *key.Binding { return &k.PrevChange }, v},
		{"next_change", func(k *KeyMap) *key.Binding { return &k.NextChange }, v},
		{"what_changed", func(k *KeyMap) *key.Binding { return &k.WhatChanged }, v},
		{"play", func(k *KeyMap) *key.Binding { return &k.Play }, v},
		{"faster", func(k *KeyMap) *key.Binding { return &k.Faster }, v},
		{"slower", func(k *KeyMap) *key.Binding { return &k.Slower }, v},
		{"messages", func(k *KeyMap) *key.Binding { return &k.Messages }, v},
	}
	for i := range 6 {
		a = append(a, keyAction{fmt.Sprintf("view_%d", i+1), func(k *KeyMap) *key.Binding { return &k.Views[i] }, v})
	}
	// The fleet table has one key of its own and shares these.
	a = append(a, keyAction{"open_loop", func(k *KeyMap) *key.Binding { return &k.OpenLoop }, ctxFleet})
	for i := range a {
		switch a[i].name {
		case "quit", "force_quit", "help", "filter", "back", "up", "down", "page_up", "page_down", "top", "bottom":
			a[i].ctx |= ctxFleet
		}
	}
	return a
}()

// DefaultKeysPath is where the TUI looks for a keys file when none is
// given: $XDG_CONFIG_HOME/aot-tui/keys.yaml, else ~/.config/aot-tui/keys.yaml.
func DefaultKeysPath() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "aot-tui", "keys.yaml")
}

// LoadKeyMap reads a keys file over the defaults. The file is a YAML
// mapping from action names (KeyActionNames) to a key or a list of keys,
// as Bubble Tea names them:
//
//	add_atom: A
//	quit: [q, ctrl+q]
//
// A missing file is an error only when required. Every error is one line
// naming the file, the line and what to do.
func LoadKeyMap(path string, required bool) (KeyMap, error) {
	k := DefaultKeyMap()
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !required:
		return k, nil
	case err != nil && required:
		return k, fmt.Errorf("keys file %s: %v — check the path given to --keys", path, err)
	case err != nil:
		return k, fmt.Errorf("keys file %s: %v — make it readable, or remove it to use the default keys", path, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return k, fmt.Errorf("keys file %s: %v — fix the YAML", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return k, nil // empty: the defaults
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return k, fmt.Errorf("keys file %s line %d: expected a mapping of action: key — see aot-tui keys", path, root.Line)
	}
	byName := map[string]keyAction{}
	for _, a := range keyActions {
		byName[a.name] = a
	}
	lines := map[string]int{} // action → line, for the ones the file sets
	for i := 0; i+1 < len(root.Content); i += 2 {
		kn, vn := root.Content[i], root.Content[i+1]
		a, ok := byName[kn.Value]
		if !ok {
			return k, fmt.Errorf("keys file %s line %d: unknown action %q — aot-tui keys lists the actions", path, kn.Line, kn.Value)
		}
		if _, twice := lines[a.name]; twice {
			return k, fmt.Errorf("keys file %s line %d: %s is set twice (also line %d) — keep one", path, kn.Line, a.name, lines[a.name])
		}
		keys, err := keyList(vn)
		if err != nil {
			return k, fmt.Errorf("keys file %s line %d: %s: %v", path, vn.Line, a.name, err)
		}
		b := a.get(&k)
		*b = key.NewBinding(key.WithKeys(keys...), key.WithHelp(keys[0], b.Help().Desc))
		lines[a.name] = kn.Line
	}
	if err := checkConflicts(&k, lines); err != nil {
		return k, fmt.Errorf("keys file %s %v", path, err)
	}
	return k, nil
}

// keyList reads a key or a list of keys.
func keyList(n *yaml.Node) ([]string, error) {
	var keys []string
	switch n.Kind {
	case yaml.ScalarNode:
		keys = []string{n.Value}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return nil, errors.New("a key is a string such as a, ctrl+x or enter")
			}
			keys = append(keys, c.Value)
		}
	default:
		return nil, errors.New("give a key or a list of keys, such as a or [a, ctrl+a]")
	}
	if len(keys) == 0 {
		return nil, errors.New("give at least one key (an action cannot be left without one)")
	}
	for _, s := range keys {
		if !validKey(s) {
			return nil, fmt.Errorf("%q is not a key Bubble Tea reports — use a single character, or a name such as enter, esc, tab, space, up, pgdown, f5, with ctrl+, alt+ or shift+ in front", s)
		}
	}
	return keys, nil
}

var namedKeys = map[string]bool{
	"enter": true, "esc": true, "tab": true, "space": true, "backspace": true, "delete": true, "insert": true,
	"up": true, "down": true, "left": true, "right": true, "home": true, "end": true, "pgup": true, "pgdown": true,
}

// validKey reports whether s names a key as tea.KeyPressMsg.String() does.
func validKey(s string) bool {
	rest := s
	for _, mod := range []string{"ctrl+", "alt+", "shift+", "meta+", "super+", "hyper+"} {
		rest = strings.TrimPrefix(rest, mod)
	}
	if rest == "" {
		return false
	}
	if utf8.RuneCountInString(rest) == 1 {
		return rest != " " // space is "space"
	}
	if namedKeys[rest] {
		return true
	}
	var n int
	if _, err := fmt.Sscanf(rest, "f%d", &n); err == nil && n >= 1 && n <= 63 && rest == fmt.Sprintf("f%d", n) {
		return true
	}
	return false
}

// checkConflicts refuses a key that means two actions in one place; set
// says which actions the file set (and on which line): a conflict between
// two defaults cannot happen (TestDefaultKeysDoNotConflict).
func checkConflicts(k *KeyMap, set map[string]int) error {
	for ctx := 1; ctx <= ctxFleet; ctx <<= 1 {
		owner := map[string]string{}
		for _, a := range keyActions {
			if a.ctx&ctx == 0 {
				continue
			}
			for _, s := range a.get(k).Keys() {
				other, taken := owner[s]
				if !taken {
					owner[s] = a.name
					continue
				}
				line := set[a.name]
				if line == 0 {
					line = set[other]
				}
				return fmt.Errorf("line %d: %s would be both %s and %s %s — bind one of them to another key", line, s, other, a.name, ctxName(ctx))
			}
		}
	}
	return nil
}

func ctxName(ctx int) string {
	switch ctx {
	case ctxView:
		return "in the views"
	case ctxPreview:
		return "in the preview"
	case ctxMenu:
		return "in the redirect menu"
	case ctxStale:
		return "in the stale-flag question"
	case ctxHelp:
		return "on the help screen"
	case ctxFleet:
		return "in the fleet table"
	}
	return "in the / and : prompts"
}

// KeyActionNames lists the actions a keys file can bind, with their keys
// in k (for aot-tui keys).
func KeyActionNames(k KeyMap) []string {
	var out []string
	for _, a := range keyActions {
		b := a.get(&k)
		out = append(out, fmt.Sprintf("%-18s %-22s %s", a.name, strings.Join(b.Keys(), ", "), b.Help().Desc))
	}
	return out
}
