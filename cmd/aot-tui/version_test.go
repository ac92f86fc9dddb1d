package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// versionJSON decodes `version --json`, checking it has exactly the
// stable keys, in their order.
func versionJSON(t *testing.T, out string) buildVersion {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	var keys []string
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("version --json is not an object: %q", out)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip any
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := strings.Join(keys, ","), "version,revision,time,modified,go,os,arch,protocol"; got != want {
		t.Fatalf("version --json keys %s, want %s", got, want)
	}
	var v buildVersion
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestVersionOfAWorkTreeBuild: `aot-tui --version`, `-v`, `aot-tui version`
// and `version --json` of a plain go build agree, and say the Go version
// and platform the binary was built for.
func TestVersionOfAWorkTreeBuild(t *testing.T) {
	bin := binary(t)
	code, line, stderr := runBin(t, bin, "--version")
	if code != 0 || stderr != "" {
		t.Fatalf("--version: exit %d, stderr %q", code, stderr)
	}
	platform := runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	re := regexp.MustCompile(`^aot-tui (\(devel\)|v\S+) \((rev [0-9a-f]{7}(\+dirty)?, \d{4}-\d\d-\d\d, )?` + regexp.QuoteMeta(platform) + `\)\n$`)
	if !re.MatchString(line) {
		t.Fatalf("--version printed %q, want a line matching %s", line, re)
	}
	for _, args := range [][]string{{"-v"}, {"version"}} {
		if code, out, _ := runBin(t, bin, args...); code != 0 || out != line {
			t.Errorf("%v: exit %d, %q; want %q as --version", args, code, out, line)
		}
	}
	code, out, _ := runBin(t, bin, "version", "--json")
	if code != 0 {
		t.Fatalf("version --json: exit %d", code)
	}
	v := versionJSON(t, out)
	if v.Go != runtime.Version() || v.OS != runtime.GOOS || v.Arch != runtime.GOARCH || v.Protocol != protocol {
		t.Fatalf("version --json: %+v", v)
	}
	if v.line()+"\n" != line {
		t.Fatalf("version --json %+v reads as %q; --version said %q", v, v.line(), line)
	}
}

// TestVersionOfAReleaseBuild: what the release's -ldflags -X set (as
// .goreleaser.yaml passes them) is the version, revision and date.
func TestVersionOfAReleaseBuild(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "aot-tui")
	const rev = "0123456789abcdef0123456789abcdef01234567"
	ld := "-X main.version=1.2.3 -X main.commit=" + rev + " -X main.date=2026-11-27T10:11:12Z"
	if out, err := exec.Command("go", "build", "-ldflags", ld, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	want := "aot-tui v1.2.3 (rev 0123456, 2026-11-27, " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"
	if code, out, _ := runBin(t, bin, "--version"); code != 0 || out != want {
		t.Fatalf("--version: exit %d, %q; want %q", code, out, want)
	}
	_, out, _ := runBin(t, bin, "version", "--json")
	v := versionJSON(t, out)
	if v.Version != "v1.2.3" || v.Revision != rev || v.Time != "2026-11-27T10:11:12Z" || v.Protocol != protocol {
		t.Fatalf("version --json: %+v", v)
	}
}

// TestReadVersionFromBuildInfo: the build info's module version and VCS
// stamps, as go build and go install record them.
func TestReadVersionFromBuildInfo(t *testing.T) {
	platform := " " + runtime.GOOS + "/" + runtime.GOARCH + ")"
	parse := func(s string) *debug.BuildInfo {
		t.Helper()
		bi, err := debug.ParseBuildInfo(s)
		if err != nil {
			t.Fatal(err)
		}
		return bi
	}
	for _, c := range []struct {
		name string
		info *debug.BuildInfo
		l    linked
		want string
	}{
		{"go build in a clone with changes", parse("go\tgo1.26.8\npath\tgithub.com/aot-loop/aot-tui/cmd/aot-tui\nmod\tgithub.com/aot-loop/aot-tui\t(devel)\t\n" +
			"build\tvcs=git\nbuild\tvcs.revision=abc1234def5678abc1234def5678abc1234def56\nbuild\tvcs.time=2026-11-27T09:08:07Z\nbuild\tvcs.modified=true\n"),
			linked{}, "aot-tui (devel) (rev abc1234+dirty, 2026-11-27, go1.26.8" + platform},
		{"go install …@v1.2.3", parse("go\tgo1.26.8\npath\tgithub.com/aot-loop/aot-tui/cmd/aot-tui\nmod\tgithub.com/aot-loop/aot-tui\tv1.2.3\th1:x=\n"),
			linked{}, "aot-tui v1.2.3 (go1.26.8" + platform},
		{"a release build over the build info", parse("go\tgo1.26.8\npath\tgithub.com/aot-loop/aot-tui/cmd/aot-tui\nmod\tgithub.com/aot-loop/aot-tui\t(devel)\t\n" +
			"build\tvcs.revision=abc1234def5678abc1234def5678abc1234def56\nbuild\tvcs.time=2026-11-27T09:08:07Z\nbuild\tvcs.modified=false\n"),
			linked{version: "v2.0.0", date: "2026-12-01T00:00:00Z"}, "aot-tui v2.0.0 (rev abc1234, 2026-12-01, go1.26.8" + platform},
		{"no build info", nil, linked{}, "aot-tui (devel) (" + runtime.Version() + platform},
		{"a snapshot build that knew no commit", nil, linked{version: "0.0.1-next", commit: "none", date: "0001-01-01T00:00:00Z"},
			"aot-tui v0.0.1-next (" + runtime.Version() + platform},
	} {
		if got := readVersion(c.info, c.l).line(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
