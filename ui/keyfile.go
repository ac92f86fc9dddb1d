package ui

import (
	"errors"
	"fmt"
	"github.com/aot-loop/aot-tui/internal/appfiles"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"go.yaml.in/yaml/v3"
)

// DefaultKeysPath is where the TUI looks for a keys file when none is
// given: $XDG_CONFIG_HOME/aot-tui/keys.yaml, else ~/.config/aot-tui/keys.yaml.
func DefaultKeysPath() string { return appfiles.ConfigFile("keys.yaml") }

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
	byName := map[string]*binding{}
	for i := range keyTable {
		byName[keyTable[i].Name] = &keyTable[i]
	}
	lines := map[string]int{} // action → line, for the ones the file sets
	for i := 0; i+1 < len(root.Content); i += 2 {
		kn, vn := root.Content[i], root.Content[i+1]
		name := kn.Value
		if now, ok := renamedActions[name]; ok {
			name = now
		}
		a, ok := byName[name]
		if !ok {
			return k, fmt.Errorf("keys file %s line %d: unknown action %q — aot-tui keys lists the actions", path, kn.Line, kn.Value)
		}
		if _, twice := lines[a.Name]; twice {
			return k, fmt.Errorf("keys file %s line %d: %s is set twice (also line %d) — keep one", path, kn.Line, a.Name, lines[a.Name])
		}
		keys, err := keyList(vn)
		if err != nil {
			return k, fmt.Errorf("keys file %s line %d: %s: %v", path, vn.Line, a.Name, err)
		}
		*a.key(&k) = key.NewBinding(key.WithKeys(keys...), key.WithHelp(keys[0], a.Help))
		lines[a.Name] = kn.Line
	}
	if err := checkConflicts(&k, lines); err != nil {
		return k, fmt.Errorf("keys file %s %v", path, err)
	}
	return k, nil
}

// renamedActions are the names actions had, by the name they have now: a
// keys file written for an older aot-tui keeps working.
var renamedActions = map[string]string{
	"jump": "palette", // the : prompt became the command palette, which jumps to atoms too
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
	for _, p := range places() {
		owner := map[string]string{}
		for i := range keyTable {
			a := &keyTable[i]
			if !a.Applies(p) {
				continue
			}
			for _, s := range a.keys(k).Keys() {
				other, taken := owner[s]
				if !taken {
					owner[s] = a.Name
					continue
				}
				line := set[a.Name]
				if line == 0 {
					line = set[other]
				}
				return fmt.Errorf("line %d: %s would be both %s and %s in %s — bind one of them to another key", line, s, other, a.Name, placeNames[p])
			}
		}
	}
	return nil
}

// KeyActionNames lists the actions a keys file can bind, with their keys
// in k (for aot-tui keys).
func KeyActionNames(k KeyMap) []string {
	var out []string
	for i := range keyTable {
		b := keyTable[i].keys(&k)
		out = append(out, fmt.Sprintf("%-18s %-22s %s", keyTable[i].Name, strings.Join(b.Keys(), ", "), b.Help().Desc))
	}
	return out
}
