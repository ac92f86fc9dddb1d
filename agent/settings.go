package agent

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/aot-loop/aot-tui/internal/jsonedit"
)

// HookTimeout is the timeout, in seconds, of the hook entry aot-tui
// installs (aot-tui hook returns in milliseconds; Claude Code's own
// default is much longer).
const HookTimeout = 10

// hookGroup is the Notification matcher group aot-tui installs: every
// notification (the empty matcher), one command.
type hookGroup struct {
	Matcher string      `json:"matcher"`
	Hooks   []hookEntry `json:"hooks"`
}

type hookEntry struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

func newGroup(command string) hookGroup {
	return hookGroup{Hooks: []hookEntry{{Type: "command", Command: command, Timeout: HookTimeout}}}
}

type notificationHooks struct {
	Notification []hookGroup `json:"Notification"`
}

// ours says whether a hook entry's command is aot-tui's: it runs aot-tui
// hook, or it is the very command being installed (a program renamed).
func ours(c *jsonedit.Node, command string) bool {
	return c != nil && c.Kind == jsonedit.String && (IsHookCommand(c.Str) || (command != "" && c.Str == command))
}

// IsHookCommand says whether a hook's command runs aot-tui hook: its
// program (quoted or not) is named aot-tui (aot-tui.exe) and its one
// argument is hook.
func IsHookCommand(command string) bool {
	c := strings.TrimSpace(command)
	var prog, rest string
	if c != "" && (c[0] == '"' || c[0] == '\'') {
		end := strings.IndexByte(c[1:], c[0])
		if end < 0 {
			return false
		}
		prog, rest = c[1:end+1], c[end+2:]
	} else {
		prog, rest, _ = strings.Cut(c, " ")
	}
	base := strings.ToLower(filepath.Base(strings.ReplaceAll(prog, `\`, "/")))
	return (base == "aot-tui" || base == "aot-tui.exe") && strings.TrimSpace(rest) == "hook"
}

// SettingsError is a settings file aot-tui will not change, and why.
type SettingsError struct{ Msg string }

func (e *SettingsError) Error() string { return e.Msg }

// InstallHook is the text of a Claude Code settings file (empty: there is
// none yet) with a Notification hook entry that runs command merged in:
// added to hooks.Notification (made when missing), everything else —
// other hooks, other keys, their order and layout — byte for byte as it
// was. An entry that runs aot-tui hook already is kept (changed false), or
// given command when it runs another aot-tui.
func InstallHook(settings []byte, command string) (out []byte, changed bool, err error) {
	if len(bytes.TrimSpace(settings)) == 0 {
		out, err := jsonedit.AddMember([]byte("{\n}\n"), &jsonedit.Node{Kind: jsonedit.Object, Start: 0, End: 3}, "hooks",
			notificationHooks{[]hookGroup{newGroup(command)}})
		return out, true, err
	}
	root, err := parseSettings(settings)
	if err != nil {
		return nil, false, err
	}
	hooks := root.Get("hooks")
	switch {
	case hooks == nil:
		out, err = jsonedit.AddMember(settings, root, "hooks", notificationHooks{[]hookGroup{newGroup(command)}})
		return out, true, err
	case hooks.Kind == jsonedit.Null:
		out, err = jsonedit.Replace(settings, hooks, notificationHooks{[]hookGroup{newGroup(command)}})
		return out, true, err
	case hooks.Kind != jsonedit.Object:
		return nil, false, &SettingsError{"its \"hooks\" is not an object"}
	}
	notif := hooks.Get("Notification")
	switch {
	case notif == nil:
		out, err = jsonedit.AddMember(settings, hooks, "Notification", []hookGroup{newGroup(command)})
		return out, true, err
	case notif.Kind == jsonedit.Null:
		out, err = jsonedit.Replace(settings, notif, []hookGroup{newGroup(command)})
		return out, true, err
	case notif.Kind != jsonedit.Array:
		return nil, false, &SettingsError{"its \"hooks\".\"Notification\" is not an array"}
	}
	for _, group := range notif.Elems {
		for _, h := range entries(group) {
			if c := h.Get("command"); ours(c, command) {
				if c.Str == command {
					return settings, false, nil
				}
				out, err = jsonedit.Replace(settings, c, command)
				return out, true, err
			}
		}
	}
	out, err = jsonedit.AddElement(settings, notif, newGroup(command))
	return out, true, err
}

// entries are the hook entries of a matcher group.
func entries(group *jsonedit.Node) []*jsonedit.Node {
	hs := group.Get("hooks")
	if hs == nil || hs.Kind != jsonedit.Array {
		return nil
	}
	return hs.Elems
}

// UninstallHook removes every hook entry that runs aot-tui hook (or
// command) from the Notification hooks: a group left with no entry goes,
// then an empty Notification list, then an empty hooks object. Everything
// else stays as it was (changed false when there was none).
func UninstallHook(settings []byte, command string) (out []byte, changed bool, err error) {
	if len(bytes.TrimSpace(settings)) == 0 {
		return settings, false, nil
	}
	out = settings
	for range 1000 {
		root, err := parseSettings(out)
		if err != nil {
			return nil, false, err
		}
		hooks := root.Get("hooks")
		if hooks == nil || hooks.Kind != jsonedit.Object {
			return out, changed, nil
		}
		notif := hooks.Get("Notification")
		if notif == nil || notif.Kind != jsonedit.Array {
			return out, changed, nil
		}
		next, found, err := removeOne(out, root, hooks, notif, command)
		if err != nil {
			return nil, false, err
		}
		if !found {
			return out, changed, nil
		}
		out, changed = next, true
	}
	return nil, false, errors.New("too many aot-tui hook entries")
}

// removeOne removes the first aot-tui hook entry, and what it leaves empty.
func removeOne(b []byte, root, hooks, notif *jsonedit.Node, command string) ([]byte, bool, error) {
	for _, group := range notif.Elems {
		hs := group.Get("hooks")
		for _, h := range entries(group) {
			if !ours(h.Get("command"), command) {
				continue
			}
			var out []byte
			var err error
			switch {
			case len(hs.Elems) > 1:
				out, err = jsonedit.Remove(b, hs, h)
			case len(notif.Elems) > 1:
				out, err = jsonedit.Remove(b, notif, group)
			case len(hooks.Members) > 1:
				out, err = jsonedit.RemoveMember(b, hooks, jsonedit.Index(hooks, "Notification"))
			default:
				out, err = jsonedit.RemoveMember(b, root, jsonedit.Index(root, "hooks"))
			}
			return out, true, err
		}
	}
	return b, false, nil
}

func parseSettings(b []byte) (*jsonedit.Node, error) {
	root, err := jsonedit.Parse(b)
	if err != nil {
		return nil, &SettingsError{fmt.Sprintf("not JSON (%v)", err)}
	}
	if root.Kind != jsonedit.Object {
		return nil, &SettingsError{"not a JSON object"}
	}
	return root, nil
}
