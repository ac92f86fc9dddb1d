package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestNumericFlagErrors: a bad number names the flag and what it takes, in
// one line.
func TestNumericFlagErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"redirect", "constraints", "--max-iterations", "abc"},
			`redirect constraints: --max-iterations takes a whole number, not "abc" (see aot-tui redirect constraints --help)`},
		{[]string{"redirect", "constraints", "--max-parallel-agents=1.5"},
			`redirect constraints: --max-parallel-agents takes a whole number, not "1.5" (see aot-tui redirect constraints --help)`},
		{[]string{"status", "--max-size", "16MB"},
			`status: --max-size takes a whole number, not "16MB" (see aot-tui status --help)`},
		{[]string{"--max-size", "x"},
			`--max-size takes a whole number, not "x" (see aot-tui --help)`},
		{[]string{"demo", "--speed", "fast"},
			`demo: --speed takes a number, not "fast" (see aot-tui demo --help)`},
		{[]string{"demo", "--seed", "-1"},
			`demo: --seed takes a whole number, 0 or more, not "-1" (see aot-tui demo --help)`},
		{[]string{"demo", "--atoms", "many"},
			`demo: --atoms takes a whole number, not "many" (see aot-tui demo --help)`},
		{[]string{"validate", "--json=maybe"},
			`validate: --json takes true or false, not "maybe" (see aot-tui validate --help)`},
		{[]string{"status", "--max-size", "99999999999999999999"},
			`status: --max-size is out of range: "99999999999999999999" is more than 9223372036854775807 (see aot-tui status --help)`},
		{[]string{"status", "--max-size=-99999999999999999999"},
			`status: --max-size is out of range: "-99999999999999999999" is less than -9223372036854775808 (see aot-tui status --help)`},
		{[]string{"demo", "--seed", "18446744073709551616"},
			`demo: --seed is out of range: "18446744073709551616" is more than 18446744073709551615 (see aot-tui demo --help)`},
		{[]string{"demo", "--speed", "1e999"},
			`demo: --speed is out of range: "1e999" is more than 1.7976931348623157e+308 (see aot-tui demo --help)`},
	} {
		code, stdout, stderr := cli(t, tt.args...)
		if code != exitUsage || stdout != "" || stderr != "aot-tui: "+tt.want+"\n" {
			t.Errorf("%v: exit %d, stdout %q\nstderr %q\nwant   %q", tt.args, code, stdout, stderr, "aot-tui: "+tt.want+"\n")
		}
	}
}

// TestEveryNumericFlagNamesItself: every int, uint, float, bool and
// duration flag of every command (its own and those it inherits) answers a bad value with the flag's name and what it takes.
func TestEveryNumericFlagNamesItself(t *testing.T) {
	takes := map[string]string{"int": "a whole number", "int32": "a whole number", "int64": "a whole number",
		"uint": "a whole number, 0 or more", "uint32": "a whole number, 0 or more", "uint64": "a whole number, 0 or more",
		"float32": "a number", "float64": "a number", "bool": "true or false", "duration": "a duration such as 90s, 5m or 1h30m"}
	n := 0
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		path := strings.Fields(c.CommandPath())[1:]
		check := func(f *pflag.Flag) {
			want, ok := takes[f.Value.Type()]
			if !ok || f.Name == "help" {
				return
			}
			n++
			args := append(append([]string{}, path...), "--"+f.Name+"=abc")
			code, _, stderr := cli(t, args...)
			if wantLine := fmt.Sprintf("--%s takes %s, not \"abc\" (see %s --help)\n", f.Name, want, c.CommandPath()); code != exitUsage || !strings.HasSuffix(stderr, wantLine) {
				t.Errorf("%v: exit %d, stderr %q, want it to end %q", args, code, stderr, wantLine)
			}
		}
		c.LocalFlags().VisitAll(check)
		c.InheritedFlags().VisitAll(check)
		for _, sub := range c.Commands() {
			visit(sub)
		}
	}
	visit(newRootCmd(io.Discard, io.Discard))
	if n < 10 {
		t.Fatalf("only %d numeric or boolean flags found", n)
	}
}

// TestFlagErrorTextTypes: the wording covers pflag's other numeric types
// and durations, which no command uses yet.
func TestFlagErrorTextTypes(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Int8("i8", 0, "")
	fs.Uint16("u16", 0, "")
	fs.Float32("f32", 0, "")
	fs.Duration("wait", 0, "")
	fs.String("name", "", "")
	for _, tt := range []struct{ arg, want string }{
		{"--i8=200", `--i8 is out of range: "200" is more than 127`},
		{"--i8=-200", `--i8 is out of range: "-200" is less than -128`},
		{"--i8=x", `--i8 takes a whole number, not "x"`},
		{"--u16=70000", `--u16 is out of range: "70000" is more than 65535`},
		{"--f32=1e39", `--f32 is out of range: "1e39" is more than 3.4028234663852886e+38`},
		{"--wait=soon", `--wait takes a duration such as 90s, 5m or 1h30m, not "soon"`},
		{"--name", "flag needs an argument: --name"},
		{"--nope", "unknown flag: --nope"},
	} {
		err := fs.Parse([]string{tt.arg})
		if err == nil {
			t.Fatalf("%s: no error", tt.arg)
		}
		if got := flagErrorText(err); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.arg, got, tt.want)
		}
	}
	if got := flagErrorText(errors.New("other")); got != "other" {
		t.Errorf("a plain error: %q", got)
	}
}
