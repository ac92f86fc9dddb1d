package agent

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"github.com/aot-loop/aot-tui/internal/appfiles"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aot-loop/aot-tui/internal/filelock"
	"github.com/aot-loop/aot-tui/internal/jsonstream"
	"github.com/aot-loop/aot-tui/statefile"
)

// HookInput is what Claude Code writes on a hook command's stdin (the
// fields aot-tui keeps; the rest is ignored).
type HookInput struct {
	SessionID        string `json:"session_id"`
	TranscriptPath   string `json:"transcript_path"`
	CWD              string `json:"cwd"`
	HookEventName    string `json:"hook_event_name"`
	NotificationType string `json:"notification_type"`
	Message          string `json:"message"`
}

// HookEvent is one hook call as recorded: raw strings (sanitised when a
// tracker takes them), the time aot-tui hook ran.
type HookEvent struct {
	At         time.Time `json:"at"`
	Event      string    `json:"event"`
	Session    string    `json:"session_id"`
	Type       string    `json:"notification_type,omitempty"`
	Message    string    `json:"message,omitempty"`
	Transcript string    `json:"transcript_path,omitempty"`
	CWD        string    `json:"cwd,omitempty"`
}

// Limits of the events file: one small file per project, appended and
// cut back to its last keepEvents bytes of whole lines once it passes
// maxEvents.
const (
	maxEvents  = 64 << 10
	keepEvents = 16 << 10
	// maxHookInput bounds what aot-tui hook reads from stdin.
	maxHookInput = 1 << 20
)

// HookEventsFile is the events file of the project directory project in
// dir (the hooks directory of aot-tui's state directory): named after the
// project, with 12 hex digits of the SHA-256 of its absolute path (its
// links resolved; lower case on Windows), as the journals are named:
// …/aot-tui/hooks/shop-3f9a0c21be47.events.jsonl.
func HookEventsFile(dir, project string) string {
	return hookEventsFile(dir, project, runtime.GOOS)
}

func hookEventsFile(dir, project, goos string) string {
	key := canonicalDir(project)
	if goos == "windows" {
		key = strings.ToLower(key)
	}
	h := sha256.Sum256([]byte(key))
	return filepath.Join(dir, appfiles.ReadableName(filepath.Base(key))+"-"+hex.EncodeToString(h[:6])+".events.jsonl")
}

// canonicalDir is dir absolute, its links resolved when it exists.
func canonicalDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = filepath.Clean(dir)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs
}

// ReadHookInput reads a hook's JSON from r: at most 1 MiB, and no longer
// than wait (Claude Code closes stdin after writing it; a caller that
// does not is not waited for).
func ReadHookInput(r io.Reader, wait time.Duration) (HookInput, error) {
	type result struct {
		data []byte
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, maxHookInput+1))
		ch <- result{data, err}
	}()
	var res result
	select {
	case res = <-ch:
	case <-time.After(wait):
		return HookInput{}, errors.New("no hook input on stdin within " + wait.String())
	}
	if res.err != nil {
		return HookInput{}, res.err
	}
	if len(res.data) > maxHookInput {
		return HookInput{}, errors.New("hook input larger than 1 MiB")
	}
	var in HookInput
	if err := json.Unmarshal(res.data, &in); err != nil {
		return HookInput{}, errors.New("hook input is not a JSON object: " + err.Error())
	}
	return in, nil
}

// RecordHook appends the event in to the events file of its cwd's project
// in dir (made 0700 if missing), and cuts the file back once it passes
// 64 KiB. Appends take the file's lock (internal/filelock) when they get
// it within lockWait, and append without it otherwise: one short O_APPEND
// write, which another writer cannot interleave; only the cutting back
// needs the lock, and is left to the next call without it. It returns the
// file written.
func RecordHook(dir string, in HookInput, at time.Time, lockWait time.Duration) (string, error) {
	if in.CWD == "" {
		return "", errors.New("the hook input has no cwd")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := HookEventsFile(dir, in.CWD)
	ev := HookEvent{At: at.UTC(), Event: cut(in.HookEventName, 100), Session: cut(in.SessionID, 200), Type: cut(in.NotificationType, 100),
		Message: cut(in.Message, 1000), Transcript: cut(in.TranscriptPath, 4096), CWD: cut(in.CWD, 4096)}
	line, err := jsonstream.Marshal(ev)
	if err != nil {
		return "", err
	}
	line = append(line, '\n')
	locked := false
	if lf, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600); err == nil {
		defer lf.Close()
		deadline := time.Now().Add(lockWait)
		for {
			if filelock.TryLock(lf) == nil {
				locked = true
				defer filelock.Unlock(lf)
				break
			}
			if time.Now().After(deadline) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return path, err
	}
	_, werr := f.Write(line)
	fi, serr := f.Stat()
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return path, werr
	}
	if locked && serr == nil && fi.Size() > maxEvents {
		return path, cutBack(path)
	}
	return path, nil
}

// cut is s cut to at most n bytes at a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// cutBack keeps the last keepEvents bytes of whole lines of path, written
// to a temporary file beside it and renamed over it.
func cutBack(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if len(data) > keepEvents {
		data = data[len(data)-keepEvents:]
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".events-*.tmp")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

// ReadHookEvents reads an events file (its last 1 MiB at most); lines
// that do not parse (a torn last line) are skipped. A missing file is no
// events and no error.
func ReadHookEvents(path string) ([]HookEvent, error) {
	f, err := statefile.OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > maxHookInput {
		if _, err := f.Seek(fi.Size()-maxHookInput, io.SeekStart); err != nil {
			return nil, err
		}
	}
	var out []HookEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxHookInput)
	for sc.Scan() {
		var ev HookEvent
		if json.Unmarshal(sc.Bytes(), &ev) == nil && !ev.At.IsZero() {
			out = append(out, ev)
		}
	}
	return out, nil
}

// SetHookEvents gives the tracker the project's hook events (all of them,
// as ReadHookEvents read them).
func (t *Tracker) SetHookEvents(evs []HookEvent) {
	t.hooks = evs
	t.hookSeen = t.hookSeen || len(evs) > 0
}

// waitsForPerson are the notification types that mean a person is
// waited for.
var waitsForPerson = map[string]bool{"permission_prompt": true, "idle_prompt": true, "elicitation_dialog": true}

// questionTools are the tools whose call waits for a person's answer.
var questionTools = map[string]bool{"AskUserQuestion": true, "ExitPlanMode": true}

// needsYou is the session that waits for a person now, if any: from the
// hook's events, exactly (a Notification of a waiting kind, the latest
// event of its session, that the session has not moved on from), else
// inferred from the transcript (a question tool's call without its
// answer).
func (t *Tracker) needsYou(act *Activity) *NeedsYou {
	latest := map[string]HookEvent{}
	for _, ev := range t.hooks {
		if ev.Session == "" {
			continue
		}
		if cur, ok := latest[ev.Session]; !ok || !ev.At.Before(cur.At) {
			latest[ev.Session] = ev
		}
	}
	var best *NeedsYou
	for sid, ev := range latest {
		if ev.Event != "Notification" || !waitsForPerson[ev.Type] {
			continue
		}
		s := t.sessions[sid]
		if s == nil && !t.since.IsZero() && ev.At.Before(t.since) {
			continue // a session from before the loop
		}
		moved, agent := t.movedOn(s, ev)
		if moved {
			continue
		}
		msg := ev.Message
		if msg == "" {
			msg = strings.ReplaceAll(ev.Type, "_", " ")
		}
		n := &NeedsYou{Kind: clean(ev.Type, nameRunes), Message: clean(msg, messageRunes), Since: ev.At, Session: clean(sid, nameRunes), Agent: agent}
		if best == nil || n.Since.After(best.Since) {
			best = n
		}
	}
	if best != nil {
		return best
	}
	for i := range act.Agents {
		a := &act.Agents[i]
		if st, ok := a.Current(); ok && questionTools[st.Tool] && (best == nil || st.At.After(best.Since)) {
			best = &NeedsYou{Kind: "question", Message: st.Line(), Since: st.At, Session: a.Session, Agent: a.Name(), Inferred: true}
		}
	}
	return best
}

// movedOn says whether session s has moved on since the notification ev,
// and names the agent whose call waits. A permission prompt waits on the
// tool calls without a result at its time: it is over when one of them
// has its result. Any other kind is over when the session writes a line
// after it.
func (t *Tracker) movedOn(s *sessionState, ev HookEvent) (bool, string) {
	if s == nil {
		return false, ""
	}
	if ev.Type == "permission_prompt" {
		waiting, done := 0, false
		agent := ""
		for _, a := range t.order {
			if a.sess != s {
				continue
			}
			for _, st := range a.a.Steps {
				if st.At.After(ev.At) || (st.Done && !st.DoneAt.After(ev.At)) {
					continue
				}
				waiting++
				if st.Done {
					done = true
				} else {
					agent = a.a.Name()
				}
			}
		}
		if waiting > 0 {
			return done, agent
		}
	}
	return s.last.After(ev.At), ""
}
