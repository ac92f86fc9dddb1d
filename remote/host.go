package remote

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/aot-loop/aot-tui/internal/termtext"
)

// Host is one remote machine (or container) and the loop directories on
// it to scan.
type Host struct {
	// Name is how the fleet names the host (remotes.yaml's name; the
	// URL's host for one given on the command line).
	Name string
	// Target replaces the word HOST in the transport: user@host for ssh,
	// a container or pod name for docker or kubectl.
	Target string
	// Transport is the command template, one word per element: HOST is
	// replaced by Target, "…" (or "...") by aot-tui's arguments (appended
	// when there is neither). DefaultTransport when empty.
	Transport []string
	// Quote says whether the arguments are quoted for a shell on the far
	// side (QuoteShell: ssh hands its command to the remote user's shell)
	// or passed as they are (QuoteNone: docker exec, kubectl exec). The
	// default follows the transport's program: shell for ssh, none else.
	Quote Quote
	// Dirs are the directories to scan there ("~/code": relative to the
	// remote home); Depth how deep (0: the scan's default).
	Dirs  []string
	Depth int
	// ReadOnly: corrections are not offered on this host's loops (the
	// default for hosts given on the command line).
	ReadOnly bool
}

// Quote is how a transport passes aot-tui's arguments.
type Quote int

// Quote values.
const (
	QuoteAuto Quote = iota
	QuoteShell
	QuoteNone
)

// DefaultTransport is ssh with the person's own configuration, never
// asking for a password (BatchMode), sharing a connection when their
// config names a ControlPath, and noticing a dead link within about 45 s.
var DefaultTransport = []string{"ssh", "-o", "BatchMode=yes", "-o", "ControlMaster=auto", "-o", "ControlPersist=10m",
	"-o", "ServerAliveInterval=15", "HOST", "aot-tui", "…"}

// targetRE is what a host target may be: a user@, a host name, an IPv4
// or bracketed IPv6 address, a container or pod name. Never a leading
// '-' (ssh would read -oProxyCommand=… as an option), no spaces, no
// shell or control characters. Compiled when first used: every command
// of the binary would pay for it at start.
var targetRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9_:\[][A-Za-z0-9._@%:\[\]/-]*$`)
})

// Check says what is wrong with h, if anything: a target or directory
// that could inject an option or a command, a transport without a
// program, no directory.
func (h *Host) Check() error {
	name := h.Name
	if name == "" {
		name = h.Target
	}
	if err := checkTarget(h.Target); err != nil {
		return fmt.Errorf("host %q: %w", clean(name), err)
	}
	if len(h.Transport) > 0 && strings.TrimSpace(h.Transport[0]) == "" {
		return fmt.Errorf("host %q: the transport has no program", clean(name))
	}
	for _, w := range h.Transport {
		if strings.ContainsFunc(w, unicode.IsControl) {
			return fmt.Errorf("host %q: the transport has a control character", clean(name))
		}
	}
	if len(h.Dirs) == 0 {
		return fmt.Errorf("host %q: no directory to scan", clean(name))
	}
	for _, d := range h.Dirs {
		if err := checkDir(d); err != nil {
			return fmt.Errorf("host %q: directory %q: %w", clean(name), clean(d), err)
		}
	}
	if h.Depth < 0 {
		return fmt.Errorf("host %q: depth %d: give 0 (the default) or more", clean(name), h.Depth)
	}
	return nil
}

func checkTarget(t string) error {
	switch {
	case t == "":
		return errors.New("no host name")
	case len(t) > 255:
		return errors.New("a host name over 255 characters")
	case strings.HasPrefix(t, "-"):
		return errors.New("a host name may not begin with '-' (it would be read as an option)")
	case !targetRE().MatchString(t):
		return errors.New("a host name is letters, digits and . _ - @ % : [ ] / only")
	}
	return nil
}

func checkDir(d string) error {
	switch {
	case d == "":
		return errors.New("empty")
	case strings.HasPrefix(d, "-"):
		return errors.New("may not begin with '-' (it would be read as an option)")
	case strings.ContainsFunc(d, unicode.IsControl):
		return errors.New("has a control character")
	}
	return nil
}

// ParseURL reads a remote root given on the command line,
// ssh://[user@]host[:port]/dir: "ssh://box/~/code" is ~/code on box,
// "ssh://box/srv/loops" is /srv/loops. The host is read-only (corrections
// need a remotes.yaml entry that allows them).
func ParseURL(s string) (Host, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "ssh" || u.Host == "" || u.Opaque != "" {
		return Host{}, fmt.Errorf("%q is not a remote root: write ssh://[user@]host[:port]/dir (e.g. ssh://box/~/code)", clean(s))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return Host{}, fmt.Errorf("%q: a remote root has no ?query or #fragment", clean(s))
	}
	dir := strings.TrimPrefix(u.Path, "/")
	switch {
	case dir == "" || dir == "~":
		dir = "~"
	case strings.HasPrefix(dir, "~/"):
		dir = "~/" + strings.TrimPrefix(path.Clean(dir[2:]), "/")
	default:
		dir = path.Clean("/" + dir)
	}
	target := u.Hostname() // an IPv6 address without its brackets, as ssh takes it
	if u.User != nil {
		if _, has := u.User.Password(); has {
			return Host{}, fmt.Errorf("%q: no password in a remote root (ssh uses your agent and keys)", clean(s))
		}
		target = u.User.Username() + "@" + target
	}
	h := Host{Name: u.Host, Target: target, Dirs: []string{dir}, ReadOnly: true}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 || n > 65535 {
			return Host{}, fmt.Errorf("%q: port %q is not a port number", clean(s), clean(p))
		}
		h.Transport = withPort(DefaultTransport, p)
	}
	if err := h.Check(); err != nil {
		return Host{}, err
	}
	return h, nil
}

// withPort is the ssh transport t with -p port.
func withPort(t []string, port string) []string {
	return append([]string{t[0], "-p", port}, t[1:]...)
}

// IsURL says whether a --scan argument names a remote root.
func IsURL(s string) bool { return strings.HasPrefix(s, "ssh://") }

// clean is s fit for an error message: escape sequences and control
// characters shown escaped.
func clean(s string) string { return termtext.Line(s) }
