package model

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/internal/testenv"
)

// TestMain reports the tests skipped for want of bash (testenv).
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// bashValues are values a state file may hold where the stop hook does
// arithmetic: numbers in every form bash reads, the seed's inline
// comments, YAML's null and booleans, floats, quotes, names.
var bashValues = []string{
	"5", " 5 ", "\t7", "0", "00", "-1", "+3", "- 5", "", "   ",
	"5  # note", "3                     # Previous pending Atom count", "# c", "true # c",
	"null", "~", "true", "True", "yes", "abc def", "5 abc", "abc 08",
	"08", "-08", "010", "0x1f", "0x", "0x1G", "1_000", "1e3", "5.0", ".5", "5.",
	"64#z", "2#101", "65#1", "1#1", "5#", "2#102",
	"9223372036854775807", "9223372036854775808", "99999999999999999999",
	`"5"`, `5"`, `'5'`, "5\r", "5 5", "5 [", "5 ]", "5 @", "5!",
	// Expressions and names the hook may set: aot-tui does not evaluate them.
	"i", "ITERATION", "TRUE", "5 + 1", "(5)", "!0", "--5", "a[1]", "x=1",
}

// TestBashArithAgreesWithBash runs each value through the real bash, as
// the stop hook uses its values under set -euo pipefail: in a [[ V -ge 3 ]]
// test, in an assignment W=$((V + 1)) at the top level, and in one inside
// the else branch of an if (as hook line 162 is). bashArith must say what
// bash does: a number (and which), an error (the test is false, the
// top-level assignment is skipped, the whole if is abandoned) or fatal
// (the script exits 1 at once).
func TestBashArithAgreesWithBash(t *testing.T) {
	bash := testenv.Need(t, "bash")
	const script = `set -euo pipefail
V=$1
if [[ $V -ge 3 ]]; then echo ge; else echo lt; fi
W=$((V + 1))
echo "add=${W:-unset}"
N=keep
if [[ 1 -lt 0 ]]; then N=0; else N=$((V + 1)); echo reached; fi
echo "else=$N"
`
	unknown := 0
	for _, v := range bashValues {
		got := bashArith(v)
		if got.kind == bashUnknown {
			unknown++
			continue
		}
		cmd := exec.Command(bash, "-c", script, "hook", v)
		out, err := cmd.Output()
		var exit *exec.ExitError
		code := 0
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		var want string
		switch got.kind {
		case bashNumber:
			cmp := "lt"
			if got.n >= 3 {
				cmp = "ge"
			}
			want = fmt.Sprintf("exit 0: %s add=%d reached else=%d", cmp, got.n+1, got.n+1)
		case bashError:
			want = "exit 0: lt add=unset else=keep"
		case bashFatal:
			want = "exit 1: "
		}
		if g := fmt.Sprintf("exit %d: %s", code, strings.Join(strings.Fields(string(out)), " ")); g != want {
			t.Errorf("value %q: bash says %q, bashArith %+v (%q)", v, g, got, want)
		}
	}
	if unknown > 9 {
		t.Errorf("%d values left unknown", unknown)
	}
}
