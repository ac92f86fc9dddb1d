package remote

import (
	"path/filepath"
	"strings"
)

// Command is the argv that runs aot-tui with args on h: h's transport
// (DefaultTransport when it has none) with HOST replaced by h.Target and
// "…" by args — quoted for the remote shell when the transport hands its
// command to one (ssh), as they are otherwise. Nothing here goes through
// a shell on this side: the caller executes the argv.
func (h *Host) Command(args ...string) []string {
	t := h.Transport
	if len(t) == 0 {
		t = DefaultTransport
	}
	quote := h.Quote
	if quote == QuoteAuto {
		quote = QuoteNone
		if base := strings.TrimSuffix(strings.ToLower(filepath.Base(t[0])), ".exe"); base == "ssh" {
			quote = QuoteShell
		}
	}
	pass := args
	if quote == QuoteShell {
		pass = make([]string, len(args))
		for i, a := range args {
			pass[i] = ShellQuote(a)
		}
	}
	out := make([]string, 0, len(t)+len(args))
	placed := false
	for _, w := range t {
		switch w {
		case "HOST":
			out = append(out, h.Target)
		case "…", "...":
			out = append(out, pass...)
			placed = true
		default:
			out = append(out, w)
		}
	}
	if !placed {
		out = append(out, pass...)
	}
	return out
}

// ShellQuote quotes s for a POSIX shell: as it is when it is made of
// characters no shell reads specially, else in single quotes. A leading
// "~/" stays outside the quotes, so the remote shell still expands it to
// the remote home.
func ShellQuote(s string) string {
	if rest, ok := strings.CutPrefix(s, "~/"); ok {
		if rest == "" {
			return "~/"
		}
		return "~/" + ShellQuote(rest)
	}
	if s == "~" {
		return s
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
