package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// newManCmd is the hidden `aot-tui man`: the man pages, made from the
// command tree (manPage; for the release archives and packages, see
// .goreleaser.yaml).
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

// manPage is c's page in roff (man(7)), in ASCII: every other character
// is written as the escape \[uXXXX], which groff and mandoc both read
// whatever the locale. The page has cobra's generator's sections (NAME,
// SYNOPSIS, DESCRIPTION, OPTIONS, OPTIONS INHERITED FROM PARENT COMMANDS,
// EXAMPLE, SEE ALSO); it is written here rather than by cobra/doc, whose
// Markdown renderer (go-md2man, blackfriday) cost every run of aot-tui
// half a millisecond of package initialisation before main, and which
// read the help texts as Markdown: it filled the indented examples and
// tables into paragraphs and dropped "<n>" as HTML. The help texts are
// plain text: a line indented by spaces or a tab is printed as it is
// (with the indentation the lines around it share taken off), a line
// "#### Title" (cobra's completion commands) is a subsection, the rest is
// filled into paragraphs at the blank lines.
func manPage(c *cobra.Command) ([]byte, error) {
	date, err := manDate()
	if err != nil {
		return nil, err
	}
	c.InitDefaultHelpFlag()
	name := strings.ReplaceAll(c.CommandPath(), " ", "-")
	var b strings.Builder
	fmt.Fprintf(&b, ".nh\n.TH %s \"1\" %s %s %s\n", roffQuote(strings.ToUpper(name)), roffQuote(date.Format("Jan 2006")),
		roffQuote("aot-tui "+currentVersion().Version), roffQuote("aot-tui manual"))
	b.WriteString(".SH NAME\n" + roffText(name+" - "+c.Short) + "\n")
	b.WriteString(".SH SYNOPSIS\n\\fB" + roffText(c.UseLine()) + "\\fP\n")
	b.WriteString(".SH DESCRIPTION\n")
	desc := c.Long
	if desc == "" {
		desc = c.Short
	}
	roffBody(&b, desc)
	manFlags(&b, "OPTIONS", c.NonInheritedFlags())
	manFlags(&b, "OPTIONS INHERITED FROM PARENT COMMANDS", c.InheritedFlags())
	if c.Example != "" {
		b.WriteString(".SH EXAMPLE\n")
		roffBody(&b, "\t"+strings.ReplaceAll(c.Example, "\n", "\n\t"))
	}
	var see []string
	if c.HasParent() {
		see = append(see, strings.ReplaceAll(c.Parent().CommandPath(), " ", "-"))
	}
	subs := slices.Clone(c.Commands())
	slices.SortFunc(subs, func(a, b *cobra.Command) int { return strings.Compare(a.Name(), b.Name()) })
	for _, sub := range subs {
		if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			see = append(see, name+"-"+sub.Name())
		}
	}
	if len(see) > 0 {
		b.WriteString(".SH SEE ALSO\n")
		for i, p := range see {
			if i > 0 {
				b.WriteString(",\n")
			}
			b.WriteString("\\fB" + roffText(p) + "(1)\\fP")
		}
		b.WriteString("\n")
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

// manDate is the date the pages carry: the revision they document, when
// the build knows it, so that the same revision makes the same pages;
// otherwise SOURCE_DATE_EPOCH, else today.
func manDate() (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, currentVersion().Time); err == nil {
		return t, nil
	}
	if epoch := os.Getenv("SOURCE_DATE_EPOCH"); epoch != "" {
		n, err := strconv.ParseInt(epoch, 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q is not a number of seconds", epoch)
		}
		return time.Unix(n, 0).UTC(), nil
	}
	return time.Now(), nil
}

// manFlags writes the section title of the flags fs shows (none: no
// section): each as "-f, --file=VALUE" (a string's default quoted, the
// value of a flag that needs none in brackets), its usage below it.
func manFlags(b *strings.Builder, title string, fs *pflag.FlagSet) {
	if !fs.HasAvailableFlags() {
		return
	}
	b.WriteString(".SH " + title + "\n")
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Deprecated != "" || f.Hidden {
			return
		}
		tag := "\\fB--" + roffText(f.Name) + "\\fP"
		if f.Shorthand != "" && f.ShorthandDeprecated == "" {
			tag = "\\fB-" + roffText(f.Shorthand) + "\\fP, " + tag
		}
		def := f.DefValue
		if f.Value.Type() == "string" {
			def = strconv.Quote(def)
		}
		def = "=" + roffText(def)
		if f.NoOptDefVal != "" {
			def = "[" + def + "]"
		}
		b.WriteString(".TP\n" + tag + def + "\n" + roffLine(f.Usage) + "\n")
	})
}

// roffBody writes text, a command's help, as paragraphs (see manPage).
func roffBody(b *strings.Builder, text string) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	para := false // a paragraph of filled text is open
	for i := 0; i < len(lines); {
		line := lines[i]
		switch {
		case strings.TrimSpace(line) == "":
			para = false
			i++
		case strings.HasPrefix(line, "#"):
			b.WriteString(".SS " + roffText(strings.TrimSpace(strings.TrimLeft(line, "#"))) + "\n")
			para = false
			i++
		case line[0] == ' ' || line[0] == '\t':
			// The indented lines from here, as they are.
			k := i
			for k < len(lines) && lines[k] != "" && (lines[k][0] == ' ' || lines[k][0] == '\t') {
				k++
			}
			block := lines[i:k]
			cut := -1
			for _, l := range block {
				n := len(l) - len(strings.TrimLeft(l, " \t"))
				if cut < 0 || n < cut {
					cut = n
				}
			}
			b.WriteString(".PP\n.RS 4\n.nf\n")
			for _, l := range block {
				b.WriteString(roffLine(strings.ReplaceAll(l[cut:], "\t", "    ")) + "\n")
			}
			b.WriteString(".fi\n.RE\n")
			para = false
			i = k
		default:
			if !para {
				b.WriteString(".PP\n")
				para = true
			}
			b.WriteString(roffLine(line) + "\n")
			i++
		}
	}
}

// roffText escapes s for roff text: a backslash is \e.
func roffText(s string) string { return strings.ReplaceAll(s, `\`, `\e`) }

// roffLine is roffText for a whole input line, which must not start as a
// request does (with a dot or an apostrophe).
func roffLine(s string) string {
	s = roffText(s)
	if s != "" && (s[0] == '.' || s[0] == '\'') {
		s = `\&` + s
	}
	return s
}

// roffQuote is s as a quoted argument of a request (.TH).
func roffQuote(s string) string {
	return `"` + strings.ReplaceAll(roffText(s), `"`, `\(dq`) + `"`
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
