package main

import (
	"fmt"
	"io"

	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/spf13/cobra"
)

// `aot-tui pause --hold`: the pause a TUI form takes (redirect_requested,
// with the shared pause's lease and rules: correction's pause.go), held
// for as long as the command runs. A TUI on another machine runs it there
// through the host's transport while one of its forms is open on a loop
// of that machine, and closes its stdin when the form closes; a person
// runs it in a terminal to keep the loop paused while they look.

func newPauseCmd(g *globalFlags) *cobra.Command {
	var ff fileFlag
	var hold, clear, asJSON bool
	var form string
	cmd := &cobra.Command{
		Use:   "pause [PATH] [-f PATH] --hold [--form NAME] [--json] | --clear",
		Short: "Pause the loop while this runs (redirect_requested, as a TUI form does), or clear a leftover pause",
		Long: `--hold sets control.redirect_requested: true, as a TUI form does while it is
open, so that the loop's stop hook pauses the loop at its next decision, and
keeps it set until the command ends: when stdin closes (a pipe or socket, as
under ssh; ctrl+d at a terminal) or on SIGINT, SIGTERM or SIGHUP. Then it is
cleared unless another aot-tui form still holds the pause (aot-tui processes on
this machine share it through leases beside the state file), or someone else
set it. While it runs, a loop write that drops the flag has it set again. This is
what a TUI on another machine runs here while one of its forms is open on this
loop.

--clear clears a redirect_requested that no aot-tui form holds (a leftover of a
/redirect that never finished, or of a process that died).

--json prints one JSON line when the pause is taken (kind "paused": set, wrote,
held — how many other forms hold it —, error) and one when it is let go (kind
"released"); without it, a line of text each.

Exit codes: 0 done, 1 the file does not parse, 2 usage or I/O error (the flag
could not be written).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if hold == clear {
				return fail(exitUsage, "give --hold or --clear")
			}
			path, err := ff.resolve(args)
			if err != nil {
				return err
			}
			target, err := discover(path, "-f")
			if err != nil {
				return err
			}
			if target.Kind == statefile.KindPhaseLoop {
				return fail(exitUsage, "%s is a phase loop; it has no redirect_requested to pause it with", target.Path)
			}
			if _, err := statefile.Load(target.Path, g.maxSize); err != nil {
				return fail(exitCodeOf(err), "%v", err)
			}
			s := correction.NewSession(target.Path, correction.Options{MaxSize: g.maxSize})
			out := cmd.OutOrStdout()
			if clear {
				r := s.ClearForeignFlag()().(correction.FlagResult)
				s.Close()
				return holdLine(out, asJSON, target.Path, "released", r)
			}
			return runHold(cmd, s, target, form, asJSON, g)
		},
	}
	ff.register(cmd)
	cmd.Flags().BoolVar(&hold, "hold", false, "set redirect_requested and keep it set until stdin closes or a signal comes")
	cmd.Flags().BoolVar(&clear, "clear", false, "clear a redirect_requested no aot-tui form holds")
	cmd.Flags().StringVar(&form, "form", "pause", "what holds the pause, as other aot-tui processes are told (\"constraints\")")
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON line when the pause is taken and one when it is let go")
	return cmd
}

// runHold holds the pause until stdin closes or a signal comes.
func runHold(cmd *cobra.Command, s *correction.Session, target statefile.Target, form string, asJSON bool, g *globalFlags) error {
	out := cmd.OutOrStdout()
	r := s.BeginFor(form)().(correction.FlagResult)
	if err := holdLine(out, asJSON, target.Path, "paused", r); err != nil {
		s.Close()
		return err
	}
	ctx, stop := streamContext(cmd.InOrStdin())
	defer stop()
	// A loop write that drops the flag while it is held has it set again
	// (Session.Check), as in the TUI.
	events := make(chan statefile.Event, 1)
	w := statefile.StartWatch(target, statefile.WatchOptions{MaxSize: g.maxSize}, func(ev statefile.Event) {
		keepNewest(events, ev)
	})
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			end := s.End()
			r := correction.FlagResult{}
			if end != nil {
				r = end().(correction.FlagResult)
			}
			s.Close()
			return holdLine(out, asJSON, target.Path, "released", r)
		case ev := <-events:
			if ev.Doc == nil || s.IsOurs(ev.Data) {
				continue
			}
			for _, job := range s.Check(ev.Doc) {
				job()
			}
		}
	}
}

// keepNewest puts v in c (a channel of one slot, with one sender: the
// watcher's callback), in place of a value not yet taken: while the hold
// sets the flag again, the loop's versions that came meanwhile matter
// only by the newest. (ui/activity.go keeps the follower's newest
// snapshot the same way.)
func keepNewest[T any](c chan T, v T) {
	select {
	case <-c:
	default:
	}
	c <- v // the one sender: the slot is empty now
}

// holdLine reports a FlagResult: a JSON line (correction.HoldLine) or a
// line of text. A failed write is the command's error (exit 2).
func holdLine(w io.Writer, asJSON bool, path, kind string, r correction.FlagResult) error {
	if asJSON {
		l := correction.HoldLine{V: 1, Kind: kind, Set: r.Set, Wrote: r.Wrote, Held: r.Held}
		if r.Err != nil {
			l.Error = r.Err.Error()
		}
		if r.Wrote && r.After != nil {
			l.SHA256 = statefile.Sum(r.After)
		}
		b, err := compactJSON(l)
		if err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		if r.Err != nil {
			return silent(exitUsage)
		}
		return nil
	}
	if r.Err != nil {
		return fail(exitUsage, "%v", r.Err)
	}
	p := termtext.Line(path)
	switch {
	case kind == "paused" && r.Wrote:
		fmt.Fprintf(w, "the loop is paused (redirect_requested: true in %s); ctrl+d or ctrl+c lets it go\n", p)
	case kind == "paused":
		fmt.Fprintf(w, "the loop is already paused (redirect_requested: true in %s); it stays so while this runs\n", p)
	case r.Held > 0:
		fmt.Fprintf(w, "let go; redirect_requested stays true, held by %s (%s)\n", textfmt.Plural(r.Held, "other aot-tui form"), p)
	case r.Wrote:
		fmt.Fprintf(w, "let go: redirect_requested is false again (%s)\n", p)
	default:
		fmt.Fprintf(w, "let go; redirect_requested left as it was (%s)\n", p)
	}
	return nil
}
