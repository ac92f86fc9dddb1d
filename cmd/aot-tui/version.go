package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/spf13/cobra"
)

// Release builds set these at link time (.goreleaser.yaml):
//
//	-X main.version=1.2.3 -X main.commit=FULL_SHA -X main.date=RFC3339
//
// Each one set replaces what the Go build info says; a build without them
// (go build, go install …@v1.2.3) reports the build info alone.
var (
	version string
	commit  string
	date    string
)

// protocol is the version of what a reader (a script; nothing in aot-tui
// reads it yet) takes from this one: the keys of the --json outputs, the
// exit codes, the journal's format. It is raised when a change would break
// a reader written against the previous one, so that a reader can tell,
// through `aot-tui version --json`, that it is too old or too new before it
// reads anything else.
const protocol = 1

// buildVersion is what `aot-tui version --json` prints. The keys are
// stable: each is always present ("" or false when unknown).
type buildVersion struct {
	Version  string `json:"version"`  // v1.2.3, a pseudo-version, or (devel)
	Revision string `json:"revision"` // the full VCS revision
	Time     string `json:"time"`     // the revision's commit time, RFC 3339
	Modified bool   `json:"modified"` // built from a work tree with changes
	Go       string `json:"go"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	Protocol int    `json:"protocol"`
}

// linked is what the linker was told (-X), for readVersion.
type linked struct{ version, commit, date string }

// currentVersion is this binary's version.
func currentVersion() buildVersion {
	info, _ := debug.ReadBuildInfo()
	return readVersion(info, linked{version, commit, date})
}

// readVersion is the version from the build info (nil: none) and what the
// linker set, which wins field by field.
func readVersion(info *debug.BuildInfo, l linked) buildVersion {
	v := buildVersion{Version: "(devel)", Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, Protocol: protocol}
	if info != nil {
		if mv := info.Main.Version; mv != "" {
			v.Version = mv
		}
		if info.GoVersion != "" {
			v.Go = info.GoVersion
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Revision = s.Value
			case "vcs.time":
				v.Time = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if l.version != "" {
		v.Version = l.version
		// GoReleaser's {{.Version}} has no leading v; Go's versions do.
		if c := l.version[0]; c >= '0' && c <= '9' {
			v.Version = "v" + l.version
		}
	}
	// A snapshot build of GoReleaser without a remote passes "none" and
	// the zero time: they say nothing.
	if l.commit != "" && l.commit != "none" {
		v.Revision = l.commit
	}
	if l.date != "" && !strings.HasPrefix(l.date, "0001-01-01") {
		v.Time = l.date
	}
	return v
}

// line is the version in one line:
//
//	aot-tui v1.2.3 (rev abc1234, 2026-11-27, go1.26.8 linux/amd64)
//	aot-tui (devel) (rev abc1234+dirty, 2026-11-27, go1.26.8 linux/amd64)
//
// leaving out the revision and the date when the build does not know them.
func (v buildVersion) line() string {
	var parts []string
	if v.Revision != "" {
		rev := v.Revision
		if len(rev) > 7 {
			rev = rev[:7]
		}
		if v.Modified {
			rev += "+dirty"
		}
		parts = append(parts, "rev "+rev)
	}
	if v.Time != "" {
		day, _, _ := strings.Cut(v.Time, "T")
		parts = append(parts, day)
	}
	parts = append(parts, v.Go+" "+v.OS+"/"+v.Arch)
	return termtext.Line(fmt.Sprintf("aot-tui %s (%s)", v.Version, strings.Join(parts, ", ")))
}

// setVersionFlag gives root --version (and -v): the version line.
func setVersionFlag(root *cobra.Command) {
	root.Version = currentVersion().line()
	root.SetVersionTemplate("{{.Version}}\n")
}

func newVersionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version [--json]",
		Short: "Print the version: release, VCS revision, Go version and platform",
		Long: `Prints the version in one line, as --version does:

  aot-tui v1.2.3 (rev abc1234, 2026-11-27, go1.26.8 linux/amd64)

A build from a work tree says (devel) or a Go pseudo-version, and +dirty after
the revision when the tree had changes. With --json, one object with the keys
version, revision, time, modified, go, os, arch and protocol: an integer raised
whenever a change to the --json outputs, exit codes or journal would break a
reader of the previous one, for a reader to compare.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := currentVersion()
			if asJSON {
				writeJSON(cmd.OutOrStdout(), v)
				return nil
			}
			fmt.Fprintln(cmd.OutOrStdout(), v.line())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the version as one JSON object")
	return cmd
}
