package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"
)

// newManCmd is the hidden `aot-tui man`: the man pages, generated from the
// command tree by cobra's generator (for the release archives and
// packages, see .goreleaser.yaml).
func newManCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "man [--dir DIR]",
		Short: "Write the man pages: aot-tui(1) on stdout, or one page per command into DIR",
		Long: `Writes the man pages made from the commands' help: aot-tui(1) on stdout, or
with --dir DIR one page per command into DIR (aot-tui.1, aot-tui-status.1,
aot-tui-redirect-add-atom.1, …), for a package or ~/.local/share/man/man1.
Not listed by --help.`,
		Hidden: true,
		Args:   noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			root.DisableAutoGenTag = true
			forAnyMachine(root)
			if dir == "" {
				page, err := manPage(root)
				if err != nil {
					return fail(exitUsage, "man: %v", err)
				}
				_, err = cmd.OutOrStdout().Write(page)
				return err
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fail(exitUsage, "man: %v", err)
			}
			return writeManTree(cmd, root, dir)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "write aot-tui.1 and a page per command (aot-tui-status.1, …) into this directory")
	return cmd
}

// writeManTree writes the page of c and of every command under it that
// help lists into dir, as aot-tui-redirect-add-atom.1 and so on, and
// prints each file's path.
func writeManTree(cmd, c *cobra.Command, dir string) error {
	for _, sub := range c.Commands() {
		if !sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
			continue
		}
		if err := writeManTree(cmd, sub, dir); err != nil {
			return err
		}
	}
	page, err := manPage(c)
	if err != nil {
		return fail(exitUsage, "man: %s: %v", c.CommandPath(), err)
	}
	path := filepath.Join(dir, strings.ReplaceAll(c.CommandPath(), " ", "-")+".1")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		return fail(exitUsage, "man: %v", err)
	}
	fmt.Fprintln(cmd.OutOrStdout(), path)
	return nil
}

// manPage is c's page in roff, in ASCII: every other character is written
// as the escape \[uXXXX], which groff and mandoc both read whatever the
// locale.
func manPage(c *cobra.Command) ([]byte, error) {
	var b bytes.Buffer
	if err := doc.GenMan(c, manHeader(), &b); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	for _, r := range b.String() {
		if r < 0x80 {
			out.WriteRune(r)
		} else {
			fmt.Fprintf(&out, `\[u%04X]`, r)
		}
	}
	return out.Bytes(), nil
}

// manHeader dates the pages by the revision they document, when the build
// knows it, so that the same revision makes the same pages; otherwise by
// SOURCE_DATE_EPOCH, else today (cobra's rule).
func manHeader() *doc.GenManHeader {
	v := currentVersion()
	h := &doc.GenManHeader{Section: "1", Source: "aot-tui " + v.Version, Manual: "aot-tui manual"}
	if t, err := time.Parse(time.RFC3339, v.Time); err == nil {
		h.Date = &t
	}
	return h
}

// forAnyMachine rewords the flag texts that name a path of the machine
// the pages are made on (the keys file under its builder's home), for
// pages shipped to every machine.
func forAnyMachine(root *cobra.Command) {
	here := keysFileHint()
	const anywhere = "$XDG_CONFIG_HOME/aot-tui/keys.yaml, else ~/.config/aot-tui/keys.yaml,"
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		for _, fs := range []*pflag.FlagSet{c.LocalFlags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) {
				f.Usage = strings.ReplaceAll(f.Usage, here, anywhere)
			})
		}
		for _, sub := range c.Commands() {
			visit(sub)
		}
	}
	visit(root)
}
