package appfiles

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestConfigFile(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	home := func() (string, error) { return "/home/u", nil }
	if got := configFile("keys.yaml", env("/xdg"), home); got != filepath.Join("/xdg", "aot-tui", "keys.yaml") {
		t.Errorf("with XDG_CONFIG_HOME: %q", got)
	}
	if got := configFile("prices.yaml", env(""), home); got != filepath.Join("/home/u", ".config", "aot-tui", "prices.yaml") {
		t.Errorf("without: %q", got)
	}
	if got := configFile("keys.yaml", env(""), func() (string, error) { return "", errors.New("no home") }); got != "" {
		t.Errorf("no home: %q", got)
	}
}

func TestReadableName(t *testing.T) {
	for in, want := range map[string]string{
		"shop": "shop", "my shop/x": "my_shop_x", ".claude": "_claude", "..": "_.", "": "_",
		"a\x1b[31mb": "a__31mb", "C:\\Users": "C__Users",
		"0123456789012345678901234567890123456789XYZ": "0123456789012345678901234567890123456789",
	} {
		if got := ReadableName(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
