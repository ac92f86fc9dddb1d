package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The architecture document is the shared picture of the code, and it is
// kept true with every change. These tests hold it to what can be checked
// mechanically: every package directory is named in it, every path it
// cites exists, and every package.Name it cites is declared.

const architectureDoc = "docs/ARCHITECTURE.md"

// moduleRoot is the repository root, two levels up from cmd/aot-tui.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}

// codeSpans returns the text of every `code span` of a Markdown document,
// fenced blocks left out.
func codeSpans(doc string) []string {
	var spans []string
	fenced := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		parts := strings.Split(line, "`")
		for i := 1; i < len(parts)-1; i += 2 {
			spans = append(spans, strings.TrimSpace(parts[i]))
		}
	}
	return spans
}

// sourceTree walks the module: every Go package directory (a directory
// with a non-test .go file; testdata and hidden directories left out), as
// slash paths relative to root, and every file's name.
func sourceTree(t *testing.T, root string) (pkgs map[string]bool, names []string) {
	t.Helper()
	pkgs = map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		names = append(names, name)
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			rel, err := filepath.Rel(root, filepath.Dir(p))
			if err != nil {
				return err
			}
			pkgs[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs, names
}

func readArchitecture(t *testing.T, root string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, architectureDoc))
	if err != nil {
		t.Fatalf("%v: the architecture document is the shared picture of the code; restore it", err)
	}
	return string(data)
}

func TestArchitectureNamesEveryPackage(t *testing.T) {
	root := moduleRoot(t)
	doc := readArchitecture(t, root)
	pkgs, _ := sourceTree(t, root)
	spans := map[string]bool{}
	for _, s := range codeSpans(doc) {
		spans[s] = true
	}
	for dir := range pkgs {
		if dir == "." {
			continue
		}
		if !spans[dir+"/"] {
			t.Errorf("%s does not name the package directory %s: add `%s/` with a paragraph on what it owns (section 2)", architectureDoc, dir, dir)
		}
	}
}

// repoPath matches a code span that may be a path: words of file-name
// characters (and * for a glob) joined by slashes.
var repoPath = regexp.MustCompile(`^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.*-]+)*/?$`)

func TestArchitecturePathsExist(t *testing.T) {
	root := moduleRoot(t)
	doc := readArchitecture(t, root)
	_, names := sourceTree(t, root)
	top, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	topNames := map[string]bool{}
	for _, e := range top {
		// .git is the repository, not its content: .git/worktrees/ is a
		// path the fleet reads in the repositories it scans.
		topNames[e.Name()] = e.Name() != ".git"
	}
	checked := 0
	seen := map[string]bool{}
	for _, s := range codeSpans(doc) {
		if !repoPath.MatchString(s) || seen[s] {
			continue
		}
		seen[s] = true
		first, _, nested := strings.Cut(s, "/")
		switch {
		case nested && topNames[first]:
			// A path from the repository root (cmd/aot-tui/root.go, .ci/run,
			// statefile/swap_*.go): it exists.
			matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(s, "/"))))
			if err != nil || len(matches) == 0 {
				t.Errorf("%s cites %s, which does not exist: fix the citation or the document", architectureDoc, s)
			}
			checked++
		case !nested && strings.HasSuffix(s, ".go"):
			// A file named inside its package's paragraph (write.go,
			// swap_*.go): some file of the module has that name.
			if !slices.ContainsFunc(names, func(n string) bool { ok, _ := path.Match(s, n); return ok }) {
				t.Errorf("%s cites %s, and no file of the module has that name: fix the citation or the document", architectureDoc, s)
			}
			checked++
		}
	}
	if checked < 50 {
		t.Errorf("%s cites only %d paths the test recognises: the document cites files as `dir/file.go` in code spans", architectureDoc, checked)
	}
}

// qualified matches a code span naming a declaration of a package of the
// module: statefile.Update, *model.Refusal.
var qualified = regexp.MustCompile(`^\*?([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9_]*)$`)

func TestArchitectureNamesDeclaredIdentifiers(t *testing.T) {
	root := moduleRoot(t)
	doc := readArchitecture(t, root)
	pkgs, _ := sourceTree(t, root)
	// The package name of each directory is its last element, but for
	// cmd/aot-tui (main), which nothing can cite as a package.
	dirOf := map[string]string{}
	for dir := range pkgs {
		if name := path.Base(dir); dir != "." && !strings.HasPrefix(dir, "cmd/") {
			if other, dup := dirOf[name]; dup {
				t.Fatalf("packages %s and %s share the name %s: cite them apart", other, dir, name)
			}
			dirOf[name] = dir
		}
	}
	decls := map[string]map[string]bool{}
	checked := 0
	for _, s := range codeSpans(doc) {
		m := qualified.FindStringSubmatch(s)
		if m == nil || dirOf[m[1]] == "" {
			continue // not a package of the module (os.Rename, tea.Cmd)
		}
		dir := dirOf[m[1]]
		if decls[dir] == nil {
			decls[dir] = topLevelNames(t, filepath.Join(root, filepath.FromSlash(dir)))
		}
		if !decls[dir][m[2]] {
			t.Errorf("%s cites %s.%s, which %s/ does not declare: fix the citation or the document", architectureDoc, m[1], m[2], dir)
		}
		checked++
	}
	if checked < 30 {
		t.Errorf("%s cites only %d package.Name identifiers the test recognises", architectureDoc, checked)
	}
}

// topLevelNames returns the names a package's non-test files declare at
// top level: functions (not methods), types, variables and constants.
func topLevelNames(t *testing.T, dir string) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	fset := token.NewFileSet()
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						names[sp.Name.Name] = true
					case *ast.ValueSpec:
						for _, id := range sp.Names {
							names[id.Name] = true
						}
					}
				}
			}
		}
	}
	return names
}
