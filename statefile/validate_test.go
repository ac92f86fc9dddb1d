package statefile

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
)

// expectation is what a fixture under testdata/valid or testdata/invalid
// says about itself. A Markdown fixture carries it in lines of its own
// text (in the body, where the parser never looks); a JSON fixture in a
// sidecar FILE.expect:
//
//	expect error: line 12: atom A8 depends on A99, which does not exist …
//	expect warning: line 40: …
//	expect loop-tools: line 65: the stop hook reads control.status as …
//	expect parse-error: line 7: text the error message contains
//
// error, warning and loop-tools lines (the warnings of the loop-tools
// kind) must match the report's strings exactly, and together they must be
// all of them: a fixture with no expect lines must validate with no
// findings at all.
type expectation struct {
	errors, warnings, loopTools []string
	parseLine                   int
	parseMsg                    string
	isParseErr                  bool
}

func readExpectation(t *testing.T, path string, data []byte) expectation {
	t.Helper()
	if strings.HasSuffix(path, ".json") {
		var err error
		if data, err = os.ReadFile(path + ".expect"); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	var e expectation
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		kind, rest, ok := strings.Cut(line, ": ")
		if !ok || !strings.HasPrefix(kind, "expect ") {
			continue
		}
		switch strings.TrimPrefix(kind, "expect ") {
		case "error":
			e.errors = append(e.errors, rest)
		case "warning":
			e.warnings = append(e.warnings, rest)
		case "loop-tools":
			e.loopTools = append(e.loopTools, rest)
		case "parse-error":
			e.isParseErr = true
			num, msg, _ := strings.Cut(strings.TrimPrefix(rest, "line "), ": ")
			n, err := strconv.Atoi(num)
			if err != nil {
				t.Fatalf("%s: bad expect line %q", path, line)
			}
			e.parseLine, e.parseMsg = n, msg
		default:
			t.Fatalf("%s: unknown expectation %q", path, line)
		}
	}
	return e
}

// fixtures lists the hand-written cases, valid and invalid.
func fixtures(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{"valid", "invalid"} {
		for _, ext := range []string{"*.md", "*.json"} {
			m, err := filepath.Glob(filepath.Join("..", "testdata", dir, ext))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, m...)
		}
	}
	if len(files) < 20 {
		t.Fatalf("only %d fixtures found", len(files))
	}
	return files
}

// validateFile loads a fixture the way the CLI does and validates it.
func validateFile(path string) (model.Report, error) {
	if strings.HasSuffix(path, ".json") {
		p, err := LoadPhaseLoop(path, 0)
		if err != nil {
			return model.Report{}, err
		}
		return model.ValidatePhaseLoop(p), nil
	}
	doc, err := Load(path, 0)
	if err != nil {
		return model.Report{}, err
	}
	return model.Validate(doc.State), nil
}

// TestFixtures checks every hand-written case: each error and warning the
// validator can produce, with the line it names.
func TestFixtures(t *testing.T) {
	for _, path := range fixtures(t) {
		name := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := readExpectation(t, path, data)
			r, err := validateFile(path)
			if want.isParseErr {
				pe, ok := ParseError(err)
				if !ok {
					t.Fatalf("want a parse error, got %v (report %+v)", err, r)
				}
				if pe.Line != want.parseLine || !strings.Contains(pe.Msg, want.parseMsg) {
					t.Errorf("parse error = line %d: %q\nwant         line %d: containing %q", pe.Line, pe.Msg, want.parseLine, want.parseMsg)
				}
				if pe.Path != path || !strings.Contains(err.Error(), path) {
					t.Errorf("parse error does not name the file: %v", err)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("parse error is not one line: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			if strings.HasPrefix(name, "valid/") != r.Valid {
				t.Errorf("Valid = %v for a fixture in %s", r.Valid, filepath.Dir(name))
			}
			if r.Valid != (len(r.Errors) == 0) {
				t.Errorf("Valid = %v with %d errors", r.Valid, len(r.Errors))
			}
			diffFindings(t, "errors", r.Errors, want.errors)
			var warnings, loopTools []string
			for _, p := range r.Problems {
				s := model.Problem{Line: p.Line, Message: p.Message}.String()
				switch {
				case p.Kind == model.LoopToolsKind:
					loopTools = append(loopTools, s)
				case p.Severity == "warning":
					warnings = append(warnings, s)
				}
			}
			diffFindings(t, "warnings", warnings, want.warnings)
			diffFindings(t, "loop-tools warnings", loopTools, want.loopTools)
			for i := 1; i < len(r.Problems); i++ {
				if r.Problems[i-1].Line > r.Problems[i].Line {
					t.Errorf("problems are not in line order: %+v before %+v", r.Problems[i-1], r.Problems[i])
				}
			}
			lines := bytes.Count(data, []byte{'\n'}) + 1
			for _, p := range r.Problems {
				if p.Line < 0 || p.Line > lines {
					t.Errorf("problem names line %d of a %d-line file: %+v", p.Line, lines, p)
				}
			}
		})
	}
}

func diffFindings(t *testing.T, what string, got, want []string) {
	t.Helper()
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	if slices.Equal(g, w) {
		return
	}
	for _, s := range g {
		if !slices.Contains(w, s) {
			t.Errorf("unexpected %s: %s", what, s)
		}
	}
	for _, s := range w {
		if !slices.Contains(g, s) {
			t.Errorf("missing %s:    %s", what, s)
		}
	}
	if len(g) != len(w) {
		t.Errorf("%s: got %d, want %d (a finding repeated?)", what, len(g), len(w))
	}
}

// TestFixturesCoverEveryFinding makes sure the hand-written cases keep up
// with the validator: every message format in model/validate.go and
// model/phaseloop.go must be matched by at least one expectation.
func TestFixturesCoverEveryFinding(t *testing.T) {
	var all []string
	for _, path := range fixtures(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		e := readExpectation(t, path, data)
		all = append(all, e.errors...)
		all = append(all, e.warnings...)
	}
	for _, src := range []struct {
		path      string
		formatArg int
	}{{"../model/validate.go", 2}, {"../model/phaseloop.go", 1}} {
		for _, format := range findingFormats(t, src.path, src.formatArg) {
			pattern := formatPattern(format)
			if !slices.ContainsFunc(all, func(s string) bool { return pattern(stripLine(s)) }) {
				t.Errorf("%s: no fixture expects %q", filepath.Base(src.path), format)
			}
		}
	}
}

// findingFormats extracts the format strings of the errf/warnf calls in a
// source file: argument formatArg of each call.
func findingFormats(t *testing.T, path string, formatArg int) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var formats []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) <= formatArg {
			return true
		}
		var name string
		switch fun := call.Fun.(type) {
		case *ast.Ident:
			name = fun.Name
		case *ast.SelectorExpr:
			name = fun.Sel.Name
		}
		if name != "errf" && name != "warnf" {
			return true
		}
		lit, ok := call.Args[formatArg].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			t.Errorf("%s: a finding whose format is not a literal", path)
			return true
		}
		s, _ := strconv.Unquote(lit.Value)
		formats = append(formats, s)
		return true
	})
	if len(formats) < 10 {
		t.Fatalf("%s: found only %d formats", path, len(formats))
	}
	return formats
}

// formatPattern turns a printf format into a matcher: each verb matches any
// text, the rest must match literally.
func formatPattern(format string) func(string) bool {
	var parts []string
	rest := format
	for {
		i := strings.IndexByte(rest, '%')
		if i < 0 || i+1 >= len(rest) {
			parts = append(parts, rest)
			break
		}
		parts = append(parts, rest[:i])
		rest = rest[i+2:]
	}
	return func(s string) bool {
		if !strings.HasPrefix(s, parts[0]) {
			return false
		}
		s = s[len(parts[0]):]
		for k, p := range parts[1:] {
			if k == len(parts)-2 {
				return strings.HasSuffix(s, p)
			}
			i := strings.Index(s, p)
			if i < 0 {
				return false
			}
			s = s[i+len(p):]
		}
		return s == ""
	}
}

func stripLine(s string) string {
	if strings.HasPrefix(s, "line ") {
		if _, rest, ok := strings.Cut(s, ": "); ok {
			return rest
		}
	}
	return s
}
