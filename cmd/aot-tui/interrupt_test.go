package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// workerState has a worker on A9: in progress, the selected choice of OR
// group approach, depending on A1, with A3 waiting on it.
var workerState = runningLoop("make test", 4, 3, `  - id: A9
    description: "Client, the way the loop chose"
    status: in_progress
    depends_on: [A1]
    or_group: approach
  - id: A9b
    description: "Client, the other way"
    status: pending
    depends_on: [A1]
    or_group: approach
  - id: A3
    description: "Docs"
    status: pending
    depends_on: [A9]
`, `  approach:
    choices: [A9, A9b]
    selected: A9
    failed: []
`)

// updateAtom is what the loop's update_atom.py does, written here: find
// the atom's "- id:" line, set the first "status:" line after it, write
// the file back; an atom that is not there is an error.
const updateAtom = `import pathlib, sys
path, atom, status = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
lines = path.read_text().split("\n")
current, found = None, False
for i, line in enumerate(lines):
    s = line.strip()
    if s.startswith("- id:"):
        current = s.split(":", 1)[1].strip().strip("\"'")
    elif current == atom and not found and s.startswith("status:"):
        lines[i] = line[: len(line) - len(line.lstrip())] + "status: " + status
        found = True
if not found:
    print('{"error": "Atom %s not found", "success": false}' % atom)
    sys.exit(1)
path.write_text("\n".join(lines))
print('{"success": true}')
`

// workerProject writes workerState into a new project, and updateAtom
// beside it; it returns the state file's path and the script's.
func workerProject(t *testing.T) (path, script string) {
	t.Helper()
	dir := t.TempDir()
	return writeFile(t, dir, ".claude/aot-loop-state.md", workerState), writeFile(t, dir, "update_atom.py", updateAtom)
}

// Every correction that touches the in-progress A9 — resets it, deletes
// it, rewires it, moves its OR group's selection away — is refused without
// --interrupt: exit 1, one line naming A9 and --interrupt, the file
// byte-identical. With --interrupt it is written, and its corrections[]
// entry says the worker was interrupted.
func TestInterruptIsAnExplicitChoice(t *testing.T) {
	bin := binary(t)
	for _, c := range []struct {
		name string
		args []string
		how  string
	}{
		{"required-by", []string{"redirect", "add-atom", "Security review", "--required-by", "A9"}, "resets it to pending and changes its depends_on"},
		{"delete", []string{"redirect", "delete-atom", "A9", "--detach"}, "deletes it; the worker's update_atom.py A9 … will fail 'Atom A9 not found'"},
		{"force-or", []string{"redirect", "force-or", "approach", "A9b"}, "resets it to pending and makes OR group approach select A9b instead of it"},
		{"redo", []string{"redirect", "override-binding", "A1", "--redo"}, "resets it to pending"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path, _ := workerProject(t)
			args := append(c.args, "-f", path, "--guard", "0")
			code, out, errs := runBin(t, bin, args...)
			if code != exitInvalid {
				t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", code, out, errs)
			}
			want := "A9 is in progress (a worker is on it): this correction " + c.how
			if !strings.Contains(errs, want) || !strings.Contains(errs, "Add --interrupt to do it anyway") ||
				!strings.Contains(errs, path+" is unchanged") || strings.Count(errs, "\n") != 1 {
				t.Fatalf("stderr %q; want one line saying %q and --interrupt", errs, want)
			}
			if got, _ := os.ReadFile(path); string(got) != workerState {
				t.Fatal("the refused correction changed the file")
			}

			code, out, errs = runBin(t, bin, append(args, "--interrupt", "--json")...)
			if code != 0 {
				t.Fatalf("with --interrupt: exit %d: %s%s", code, out, errs)
			}
			var res struct {
				Plan struct {
					Interrupts []struct{ Atom, How string } `json:"interrupts"`
				} `json:"plan"`
				Correction struct{ Description string } `json:"correction"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if len(res.Plan.Interrupts) != 1 || res.Plan.Interrupts[0].Atom != "A9" ||
				!strings.HasSuffix(res.Correction.Description, "(interrupted the worker on A9)") {
				t.Fatalf("plan interrupts %+v, correction %q", res.Plan.Interrupts, res.Correction.Description)
			}
			if got, _ := os.ReadFile(path); !bytes.Contains(got, []byte("(interrupted the worker on A9)")) {
				t.Fatalf("the file's corrections[] entry does not say so:\n%s", got)
			}
		})
	}
}

// The race the refusal is about, played with the loop's own kind of
// write: add-atom --required-by A9 --interrupt resets A9 under its
// worker; the worker's update_atom.py A9 resolved then lands, and A9 is
// resolved while depending on the pending A10. validate says so.
func TestWorkerResultOverARequiredByIsInvalid(t *testing.T) {
	py, bin := loopPython(t), binary(t)
	path, script := workerProject(t)
	if code, out, errs := runBin(t, bin, "redirect", "add-atom", "Security review", "--required-by", "A9", "--interrupt", "-f", path, "--guard", "0"); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	if out, err := exec.Command(py, script, path, "A9", "resolved").CombinedOutput(); err != nil {
		t.Fatalf("the worker's write: %v\n%s", err, out)
	}
	code, out, errs := runBin(t, bin, "validate", path)
	want := "error: line 29: atom A9 is resolved but depends on A10, which is pending"
	if code != exitInvalid || !strings.Contains(out, want) {
		t.Fatalf("validate: exit %d\n%s%s\nwant exit 1 and %q", code, out, errs, want)
	}
}
