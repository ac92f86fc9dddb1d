// Package appfiles names the files aot-tui keeps for the person, outside
// any project: the configuration files (keys.yaml, prices.yaml,
// config.yaml) and the readable part of the names of the files it keeps
// per project (journals, hook events).
package appfiles

import (
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// ConfigFile is where the configuration file name is looked for:
// $XDG_CONFIG_HOME/aot-tui/name, else ~/.config/aot-tui/name, on every
// system; "" when neither can be named.
func ConfigFile(name string) string {
	return configFile(name, os.Getenv, os.UserHomeDir)
}

func configFile(name string, getenv func(string) string, home func() (string, error)) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		h, err := home()
		if err != nil || h == "" {
			return ""
		}
		dir = filepath.Join(h, ".config")
	}
	return filepath.Join(dir, "aot-tui", name)
}

// ReadableName is s as a part of a file name on every system: letters,
// digits, '.', '-' and '_' kept, anything else (separators, spaces,
// controls, the characters Windows forbids) an '_', at most 40 of them,
// never a leading '.' (neither a hidden file nor "..") and never empty.
func ReadableName(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == 40 {
			break
		}
		n++
		switch {
		case r == '.' && b.Len() == 0:
			b.WriteByte('_')
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}
