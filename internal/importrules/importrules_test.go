package importrules

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

const module = "github.com/aot-loop/aot-tui"

// rules: each package and the import paths none of its dependencies,
// direct or not, may be or lie under (a path ending in "$": that package
// only, not the packages under it). Test files are not counted.
var rules = []struct {
	pkg, why string
	not      []string
}{
	{"dagdraw", "the layout engine draws any DAG: no Bubble Tea, no lipgloss, no loop model, no UI",
		[]string{module + "/ui", module + "/model", module + "/statefile", "charm.land/bubbletea", "charm.land/lipgloss",
			"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss"}},
	{"internal/termtext", "the CLI and the reports sanitise with it", []string{module + "/ui"}},
	{"internal/loopgraph", "the reports draw the graph with it", []string{module + "/ui", "charm.land/bubbletea", "charm.land/lipgloss"}},
	{"report", "the post-mortem report is no part of the TUI", []string{module + "/ui"}},
	{"yamledit", "a YAML editor, not a part of the domain: it shares only yamlpatch with model", []string{module + "/model", module + "/statefile"}},
	{"yamlpatch", "the edit vocabulary imports nothing of the module", []string{module + "/model", module + "/yamledit", module + "/statefile"}},
	{"ui/fleettable", "a component: it answers with kit actions and never reaches into the root model", []string{module + "/ui$"}},
	{"ui/verifyview", "a component: it answers with kit actions and never reaches into the root model", []string{module + "/ui$", module + "/ui/fleettable"}},
	{"ui/palette", "a component: it is given the actions as data and answers with kit actions, never reaching into the root model",
		[]string{module + "/ui$", module + "/ui/fleettable", module + "/ui/verifyview", module + "/ui/redirect"}},
	{"ui/kit", "the contract imports nothing of ui", []string{module + "/ui$", module + "/ui/fleettable", module + "/ui/verifyview", module + "/ui/palette"}},
	{"internal/loopword", "the words CLI and TUI share: no UI, no styling", []string{module + "/ui", "charm.land/lipgloss", "charm.land/bubbletea"}},
	{"model", "the domain is pure: no I/O layer, no UI", []string{module + "/statefile", module + "/correction", module + "/ui", module + "/yamledit"}},
	{"agent", "reads Claude Code's records for the CLI and the TUI alike: no UI, no correction, no other layer-3 package",
		[]string{module + "/ui", module + "/correction", module + "/history", module + "/fleet", "charm.land/bubbletea", "charm.land/lipgloss"}},
	{"remote", "runs streams on other machines and reads them for the TUI and the CLI alike: no UI, no correction, no fleet",
		[]string{module + "/ui", module + "/correction", module + "/fleet", "charm.land/bubbletea", "charm.land/lipgloss"}},
	{"notify", "sends alerts for the TUI and watch alike: no UI, and no state files (the callers build the events)",
		[]string{module + "/ui", module + "/statefile", module + "/correction", module + "/history", module + "/fleet", module + "/model",
			"charm.land/bubbletea", "charm.land/lipgloss"}},
	{"internal/jsonedit", "a JSON text editor, a leaf", []string{module + "/agent", module + "/statefile", module + "/model"}},
	{"internal/appfiles", "file names, a leaf", []string{module + "/agent", module + "/history", module + "/statefile", module + "/model", module + "/ui"}},
}

// TestImportRules lists every rule's package's dependencies with go list,
// for this system and for the other first-class ones (build-tagged files
// differ), and fails on each dependency a rule forbids.
func TestImportRules(t *testing.T) {
	goCmd := testenv.Need(t, "go")
	var pkgs []string
	for _, r := range rules {
		pkgs = append(pkgs, module+"/"+r.pkg)
	}
	for _, goos := range []string{"", "darwin", "windows"} {
		cmd := exec.Command(goCmd, append([]string{"list", "-f", `{{.ImportPath}} {{join .Deps " "}}`}, pkgs...)...)
		cmd.Env = os.Environ()
		if goos != "" {
			cmd.Env = append(cmd.Env, "GOOS="+goos, "GOARCH=arm64")
		}
		out, err := cmd.Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("go list (GOOS=%q): %v\n%s", goos, err, stderr)
		}
		deps := map[string][]string{}
		for line := range strings.Lines(string(out)) {
			f := strings.Fields(line)
			if len(f) > 0 {
				deps[f[0]] = f[1:]
			}
		}
		for _, r := range rules {
			list, ok := deps[module+"/"+r.pkg]
			if !ok {
				t.Errorf("go list (GOOS=%q) did not list %s", goos, r.pkg)
			}
			for _, d := range list {
				for _, n := range r.not {
					if exact, ok := strings.CutSuffix(n, "$"); ok && d == exact || !ok && (d == n || strings.HasPrefix(d, n+"/")) {
						t.Errorf("%s depends on %s (GOOS=%q): it must not (%s)", r.pkg, d, goos, r.why)
					}
				}
			}
		}
	}
}
