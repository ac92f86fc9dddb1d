package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// releaseConfig is the part of .goreleaser.yaml that must agree with this
// repository: what it builds, the variables its ldflags set, the commands
// its hooks run and the files it packs.
type releaseConfig struct {
	Version int `yaml:"version"`
	Before  struct {
		Hooks []string `yaml:"hooks"`
	} `yaml:"before"`
	Builds []struct {
		Main    string   `yaml:"main"`
		Ldflags []string `yaml:"ldflags"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
	} `yaml:"builds"`
	Archives []struct {
		Files []string `yaml:"files"`
	} `yaml:"archives"`
	Casks []struct {
		Manpages    []string          `yaml:"manpages"`
		Completions map[string]string `yaml:"completions"`
	} `yaml:"homebrew_casks"`
	Nfpms []struct {
		Formats  []string `yaml:"formats"`
		Contents []struct {
			Src string `yaml:"src"`
		} `yaml:"contents"`
	} `yaml:"nfpms"`
}

// The release configuration agrees with the code: every platform of the
// README is built, the ldflags set variables that exist (a renamed one
// would leave `aot-tui version` saying "(devel)" in every release), the
// hooks' commands run and make the files the archives, the cask and the
// packages take. GoReleaser's own check (.ci/run) reads the schema; this
// reads what the schema cannot know, and runs wherever the tests run.
func TestReleaseConfigAgreesWithTheCode(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var rc releaseConfig
	if err := yaml.Unmarshal(data, &rc); err != nil {
		t.Fatal(err)
	}
	if rc.Version != 2 || len(rc.Builds) != 1 {
		t.Fatalf("want a version 2 configuration with one build, got version %d, %d builds", rc.Version, len(rc.Builds))
	}
	b := rc.Builds[0]
	if b.Main != "./cmd/aot-tui" {
		t.Errorf("the build's main is %q", b.Main)
	}
	for _, goos := range []string{"darwin", "linux", "windows"} {
		if !slices.Contains(b.Goos, goos) {
			t.Errorf("%s is not built", goos)
		}
	}
	for _, arch := range []string{"amd64", "arm64"} {
		if !slices.Contains(b.Goarch, arch) {
			t.Errorf("%s is not built", arch)
		}
	}
	// The variables the ldflags set are version.go's; the compiler
	// checks they exist here, the test that the ldflags name them.
	_, _, _ = version, commit, date
	set := regexp.MustCompile(`-X main\.(\w+)=`).FindAllStringSubmatch(strings.Join(b.Ldflags, " "), -1)
	var names []string
	for _, m := range set {
		names = append(names, m[1])
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"commit", "date", "version"}) {
		t.Errorf("the ldflags set main.%v, want commit, date and version", names)
	}

	// Run the hooks' aot-tui commands with the built binary, in a copy of
	// the layout they expect, and check the files the release takes.
	bin := binary(t)
	dir := t.TempDir()
	goRun := regexp.MustCompile(`go run (?:-ldflags "[^"]*" )?\./cmd/aot-tui ([^>"]*)(?:> ([^"]+))?`)
	ran := 0
	for _, h := range rc.Before.Hooks {
		for _, m := range goRun.FindAllStringSubmatch(h, -1) {
			args := strings.Fields(m[1])
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			if out := strings.TrimSpace(m[2]); out != "" {
				if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(out)), 0o755); err != nil {
					t.Fatal(err)
				}
				f, err := os.Create(filepath.Join(dir, out))
				if err != nil {
					t.Fatal(err)
				}
				cmd.Stdout = f
				defer f.Close()
			}
			var stderr strings.Builder
			if cmd.Stdout == nil {
				cmd.Stdout = &stderr
			}
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("hook %q: aot-tui %s: %v\n%s", h, m[1], err, stderr.String())
			}
			ran++
		}
	}
	if ran < 4 {
		t.Fatalf("found %d aot-tui commands in the hooks, want the three completions and the man pages", ran)
	}
	var want []string
	for _, a := range rc.Archives {
		want = append(want, a.Files...)
	}
	for _, c := range rc.Casks {
		want = append(want, c.Manpages...)
		for _, f := range c.Completions {
			want = append(want, f)
		}
	}
	for _, n := range rc.Nfpms {
		if !slices.Contains(n.Formats, "deb") || !slices.Contains(n.Formats, "rpm") {
			t.Errorf("the packages are %v, want deb and rpm", n.Formats)
		}
		for _, c := range n.Contents {
			want = append(want, c.Src)
		}
	}
	for _, f := range want {
		if !releaseHas(dir, filepath.Join("..", ".."), f) {
			t.Errorf("the release takes %s, which neither the hooks nor the repository make", f)
		}
	}
}

// trackedReleaseFiles are the files of the repository itself that the
// release takes. Anything else it takes must come from a hook: a local
// GoReleaser run leaves its completions/ and manpages/ (gitignored) at
// the root, where they would hide a hook that was dropped.
var trackedReleaseFiles = []string{"LICENSE", "README.md"}

// releaseHas says whether the file (or glob) pattern a release takes is
// made by the hooks (run in dir) or is one of trackedReleaseFiles at the
// repository's root repo. The man pages are gzipped by the last hook: the
// release names them .1.gz; here the .1 they are made from must be there.
func releaseHas(dir, repo, pattern string) bool {
	pattern = strings.TrimPrefix(strings.TrimSuffix(pattern, ".gz"), "./")
	matches, _ := filepath.Glob(filepath.Join(dir, pattern))
	if len(matches) == 0 && strings.HasSuffix(pattern, "*") {
		matches, _ = filepath.Glob(filepath.Join(dir, pattern+".1"))
	}
	if len(matches) > 0 {
		return true
	}
	if !slices.Contains(trackedReleaseFiles, pattern) {
		return false
	}
	_, err := os.Stat(filepath.Join(repo, pattern))
	return err == nil
}

// What a local GoReleaser run left at the root does not stand in for a
// hook: only LICENSE and README.md come from the repository itself.
func TestReleaseHasNoLeftOvers(t *testing.T) {
	repo, hooks := t.TempDir(), t.TempDir()
	for _, f := range []string{"LICENSE", "README.md", "completions/aot-tui.bash", "manpages/aot-tui.1"} {
		writeFile(t, repo, f, "x")
	}
	for pattern, want := range map[string]bool{
		"LICENSE": true, "README.md": true,
		"./completions/aot-tui.bash": false, "completions/*": false, "manpages/aot-tui.1.gz": false, "manpages/*": false,
	} {
		if got := releaseHas(hooks, repo, pattern); got != want {
			t.Errorf("releaseHas(%q) = %v with no hook making it, want %v", pattern, got, want)
		}
	}
	writeFile(t, hooks, "manpages/aot-tui.1", "x")
	if !releaseHas(hooks, repo, "manpages/aot-tui.1.gz") || !releaseHas(hooks, repo, "manpages/*") {
		t.Error("a man page the hooks made is not found")
	}
}
