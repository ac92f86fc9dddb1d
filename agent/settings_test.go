package agent

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const cmdline = "aot-tui hook"

// The entry lands in hooks.Notification, made where missing, laid out as
// the file is; everything else stays byte for byte; uninstalling gives
// back the very bytes there were.
func TestInstallHook(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"no file", "", `{
  "hooks": {
    "Notification": [
      {
        "matcher": "",
        "hooks": [
          {
            "type": "command",
            "command": "aot-tui hook",
            "timeout": 10
          }
        ]
      }
    ]
  }
}
`},
		{"other keys and hooks, four spaces", `{
    "model": "opus",
    "hooks": {
        "Stop": [
            {"hooks": [{"type": "command", "command": "say done"}]}
        ]
    },
    "env": {"A": "1"}
}
`, `{
    "model": "opus",
    "hooks": {
        "Stop": [
            {"hooks": [{"type": "command", "command": "say done"}]}
        ],
        "Notification": [
            {
                "matcher": "",
                "hooks": [
                    {
                        "type": "command",
                        "command": "aot-tui hook",
                        "timeout": 10
                    }
                ]
            }
        ]
    },
    "env": {"A": "1"}
}
`},
		{"another Notification hook, tabs", "{\n\t\"hooks\": {\n\t\t\"Notification\": [\n\t\t\t{\"matcher\": \"permission_prompt\", \"hooks\": [{\"type\": \"command\", \"command\": \"notify-send hi\"}]}\n\t\t]\n\t}\n}",
			"{\n\t\"hooks\": {\n\t\t\"Notification\": [\n\t\t\t{\"matcher\": \"permission_prompt\", \"hooks\": [{\"type\": \"command\", \"command\": \"notify-send hi\"}]},\n\t\t\t{\n\t\t\t\t\"matcher\": \"\",\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"type\": \"command\",\n\t\t\t\t\t\t\"command\": \"aot-tui hook\",\n\t\t\t\t\t\t\"timeout\": 10\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t}\n}"},
		{"one line", `{"model":"opus","permissions":{"allow":["Bash(ls:*)"]}}`,
			`{"model":"opus","permissions":{"allow":["Bash(ls:*)"]}, "hooks":{"Notification":[{"matcher":"","hooks":[{"type":"command","command":"aot-tui hook","timeout":10}]}]}}`},
		{"CRLF and an empty hooks object", "{\r\n  \"hooks\": {}\r\n}\r\n",
			strings.ReplaceAll("{\n  \"hooks\": {\n    \"Notification\": [\n      {\n        \"matcher\": \"\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"aot-tui hook\",\n            \"timeout\": 10\n          }\n        ]\n      }\n    ]\n  }\n}\n", "\n", "\r\n")},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, changed, err := InstallHook([]byte(c.in), cmdline)
			if err != nil || !changed || string(out) != c.want {
				t.Fatalf("changed %v, err %v, got\n%s\nwant\n%s", changed, err, out, c.want)
			}
			if !json.Valid(out) {
				t.Fatal("not JSON")
			}
			again, changed, err := InstallHook(out, cmdline)
			if err != nil || changed || string(again) != string(out) {
				t.Fatalf("installed twice: changed %v, %v", changed, err)
			}
			back, changed, err := UninstallHook(out, cmdline)
			if err != nil || !changed {
				t.Fatalf("uninstall: %v %v", changed, err)
			}
			if c.in != "" && c.name != "CRLF and an empty hooks object" && string(back) != c.in {
				t.Fatalf("uninstall did not give the bytes back:\n%s\nwant\n%s", back, c.in)
			}
			if _, changed, _ := UninstallHook(back, cmdline); changed {
				t.Fatal("uninstalled twice")
			}
		})
	}
}

// An entry running another aot-tui gets this command; uninstall removes
// entries of any aot-tui, and only those, with what they leave empty.
func TestInstallHookEntriesOfAnotherAotTUI(t *testing.T) {
	in := `{"hooks": {"Notification": [{"matcher": "", "hooks": [{"type": "command", "command": "say hi"}, {"type": "command", "command": "/opt/old/aot-tui hook"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "'/My Apps/aot-tui.exe' hook"}]}]}}`
	out, changed, err := InstallHook([]byte(in), cmdline)
	if err != nil || !changed || !strings.Contains(string(out), `"command": "aot-tui hook"}]}]`) || strings.Contains(string(out), "/opt/old") {
		t.Fatalf("%v %v\n%s", changed, err, out)
	}
	back, _, err := UninstallHook(out, cmdline)
	if err != nil || string(back) != `{"hooks": {"Notification": [{"matcher": "", "hooks": [{"type": "command", "command": "say hi"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "'/My Apps/aot-tui.exe' hook"}]}]}}` {
		t.Fatalf("%v\n%s", err, back)
	}
	for cmd, want := range map[string]bool{"aot-tui hook": true, `"C:\Program Files\aot-tui.exe" hook`: true, "/usr/bin/aot-tui  hook ": true,
		"aot-tui hook install": false, "aot-tuix hook": false, "echo aot-tui hook": false, "aot-tui": false} {
		if IsHookCommand(cmd) != want {
			t.Errorf("IsHookCommand(%q) = %v", cmd, !want)
		}
	}
}

// A file that is not a settings object is refused with where it goes
// wrong, and nothing is made of it.
func TestInstallHookRefuses(t *testing.T) {
	for in, want := range map[string]string{
		"{\n  \"model\": \"opus\",\n}\n":  "line 3",
		"[1, 2]":                          "not a JSON object",
		`{"hooks": []}`:                   `"hooks" is not an object`,
		`{"hooks": {"Notification": {}}}`: `"Notification" is not an array`,
	} {
		_, _, err := InstallHook([]byte(in), cmdline)
		var se *SettingsError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	out, changed, err := InstallHook([]byte(`{"hooks": null}`), cmdline)
	if err != nil || !changed || !json.Valid(out) || !strings.Contains(string(out), "aot-tui hook") {
		t.Errorf("hooks null: %v %s", err, out)
	}
}
