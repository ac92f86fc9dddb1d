package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// What Claude Code records of the loop's sessions, written as the
// simulated loop works (Config.Claude): the transcript of the session
// that runs /enter-recursion, one sub-agent file per coordinator (one an
// iteration), per worker and per verifier, in the layout and line format
// agent reads (agent/doc.go; README "Activity, needs you and cost"), and
// the hook's record of a permission prompt. Ids and token counts come
// from a generator of their own, seeded by Config.Seed, so the loop's
// outcomes and timings are those of a run that writes none of it; the
// timestamps are the wall clock's, as Claude Code's are.

// ClaudeFiles says where the simulator writes what Claude Code would
// record: aot-tui demo puts both in its own directory, never in the
// user's.
type ClaudeFiles struct {
	// Projects is Claude Code's projects directory ($CLAUDE_CONFIG_DIR/
	// projects): the session goes in its directory for the project
	// (agent.DirName of the project directory, its links resolved).
	Projects string
	// Hooks is the directory aot-tui hook records events in (…/aot-tui/
	// hooks of a state directory): the demo's permission prompt is
	// recorded in the project's events file there (agent.HookEventsFile),
	// by agent.RecordHook as aot-tui hook records it ("" records none).
	Hooks string
}

// ClaudeWritten is what a run wrote of Claude Code's records
// (Result.Claude): the sums a reader of the files should find.
type ClaudeWritten struct {
	// Session is the session's id; Dir its transcripts' directory; Files
	// the transcripts written (the session's and its sub-agents'), Lines
	// their lines.
	Session string
	Dir     string
	Files   int
	Lines   int
	// Responses counts the API responses (each written on as many lines
	// as it has content blocks, with one message id); Tokens sums their
	// usage; ByAtom sums it by the atom each was worked for: a worker's,
	// or the one atom marked in progress when the coordinator or the
	// session's main thread answered ("" when none or several were).
	Responses int
	Tokens    agent.Tokens
	ByAtom    map[string]agent.Tokens
	// Workers are the atoms a worker was started for, once each.
	Workers []string
	// Prompts counts the permission prompts recorded (hook events).
	Prompts int
	// Err is the first write that failed: the run went on without
	// writing more of the records.
	Err error
}

// Names and words the records use.
const (
	claudeVersion = "2.1.200"
	modelMain     = "claude-opus-4-5-20251101"
	modelWorker   = "claude-sonnet-4-5-20250929"
	modelVerifier = "claude-haiku-4-5-20251001"
	pluginScripts = "${CLAUDE_PLUGIN_ROOT}/skills/"
	// permissionMessage is what Claude Code's Notification says while a
	// permission dialog shows.
	permissionMessage = "Claude needs your permission to use Bash"
)

// transcript writes the records of one run. Its methods do nothing on a
// nil transcript (a run without Config.Claude), and nothing more once a
// write failed (ClaudeWritten.Err).
type transcript struct {
	rng     *rand.Rand
	cwd     string
	dir     string
	hooks   string
	session string
	// ids are the ids given out (never twice); last the last line's time.
	ids  map[string]bool
	last time.Time
	// main is the session's main thread, coord the iteration's
	// coordinator, workers its workers still running (the one whose step
	// began first first).
	main    *thread
	coord   *thread
	workers []*thread
	// open are the atoms marked in progress and not yet resolved or
	// pending, as the reader keeps them.
	open []string
	// noted are what the coordinator said of the iteration's outcomes.
	noted []string
	// worked are the atoms a worker was started for.
	worked  map[string]bool
	out     ClaudeWritten
	onEvent func(string)
}

// thread is one agent's file: the session's main thread or a sub-agent.
type thread struct {
	path  string
	agent string // "" for the main thread
	model string
	// last is the uuid of its last line: the next line's parentUuid.
	last string
	// atom is a worker's atom; desc its Task's description, prompt its
	// first prompt, task the id of the Task call that started it.
	atom, desc, prompt, task string
	files                    []string
	// context is how many tokens its context holds: the next response
	// reads them from the cache.
	context int64
	// calls are its tool calls waiting for their results.
	calls []call
	steps int
}

// call is a tool call and the result it will get.
type call struct {
	id, name, result string
	failed           bool
	// atom and status: the update_atom.py mark it makes.
	atom, status string
}

func newTranscript(cfg Config) (*transcript, error) {
	c := cfg.Claude
	project := statefile.ProjectDir(cfg.Path)
	cwd, err := filepath.Abs(project)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real // the working directory Claude Code reports
	}
	name, _ := agent.DirName(cwd)
	tr := &transcript{
		rng: rand.New(rand.NewPCG(cfg.Seed, 0xc1a0de)), cwd: cwd, dir: filepath.Join(c.Projects, name), hooks: c.Hooks,
		ids: map[string]bool{}, worked: map[string]bool{}, onEvent: cfg.OnClaude,
	}
	tr.session = tr.uuid()
	tr.out = ClaudeWritten{Session: tr.session, Dir: tr.dir, ByAtom: map[string]agent.Tokens{}}
	if err := os.MkdirAll(tr.dir, 0o700); err != nil {
		return nil, err
	}
	if c.Hooks != "" {
		if err := os.MkdirAll(c.Hooks, 0o700); err != nil {
			return nil, err
		}
	}
	tr.main = &thread{path: filepath.Join(tr.dir, tr.session+".jsonl"), model: modelMain}
	return tr, nil
}

// ok says whether records are written.
func (tr *transcript) ok() bool { return tr != nil && tr.out.Err == nil }

func (tr *transcript) result() *ClaudeWritten {
	if tr == nil {
		return nil
	}
	out := tr.out
	out.ByAtom = make(map[string]agent.Tokens, len(tr.out.ByAtom))
	for k, v := range tr.out.ByAtom {
		out.ByAtom[k] = v
	}
	out.Workers = slices.Clone(tr.out.Workers)
	return &out
}

// ---- the loop's moments ----

// start is /enter-recursion: the person's command, and (pending: the
// loop has not started yet) the main thread setting the loop running.
func (tr *transcript) start(pending bool) {
	if !tr.ok() {
		return
	}
	tr.prompt(tr.main, "/enter-recursion", false)
	if !pending {
		return
	}
	tr.respond(tr.main, "tool_use", []block{
		textBlock("The gate passes: the objective is aligned and the graph has atoms. Starting the AoT loop."),
		tr.bash(script("state-contract", "set_status.py")+" running", "Set the loop running", `{"success": true, "status": "running"}`, "", ""),
	})
	tr.results(tr.main, true)
}

// beginIteration is the main thread starting the iteration's
// coordinator, and the coordinator reading the state.
func (tr *transcript) beginIteration(it int, batch []string) {
	if !tr.ok() {
		return
	}
	c := &thread{agent: tr.agentID(), model: modelMain}
	c.path = tr.subagentPath(c.agent)
	c.desc = fmt.Sprintf("AoT Loop iteration %d", it)
	c.prompt = fmt.Sprintf("AoT Loop iteration %d started.\n\nRead the state file at .claude/aot-loop-state.md, then work the executable atoms.", it)
	tr.coord, tr.noted = c, nil
	c.task = tr.task(tr.main, c, "aot-coordinator", "")
	tr.prompt(c, c.prompt, true)
	plan := "Nothing is executable."
	if len(batch) > 0 {
		plan = "Executable now: " + strings.Join(batch, ", ") + "."
	}
	tr.respond(c, "tool_use", []block{
		thinkingBlock(plan + " Mark them in progress, then one worker each, in parallel."),
		tr.bash(script("state-contract", "read_state.py"), "Read the loop state", fmt.Sprintf(`{"status": "running", "iteration": %d, "executable_atoms": %s}`, it, jsonList(batch)), "", ""),
	})
	tr.results(c, true)
}

// mark is the coordinator's update_atom.py call marking atom status (its
// result written by done).
func (tr *transcript) mark(atom, status string) {
	if !tr.ok() || tr.coord == nil {
		return
	}
	tr.respond(tr.coord, "tool_use", []block{tr.markCall(atom, status)})
}

func (tr *transcript) markCall(atom, status string) block {
	return tr.bash(script("state-contract", "update_atom.py")+" "+atom+" "+status, "Mark "+atom+" "+strings.ReplaceAll(status, "_", " "),
		fmt.Sprintf(`{"success": true, "atom_id": %q, "status": %q}`, atom, status), atom, status)
}

// done writes the results of the coordinator's calls: ok false, they
// failed (the state no longer had what they changed).
func (tr *transcript) done(ok bool) {
	if !tr.ok() || tr.coord == nil {
		return
	}
	tr.results(tr.coord, ok)
}

// spawn is the coordinator starting one worker for each atom of the
// batch (one response, a Task call a line), and each worker reading its
// prompt and taking its first step.
func (tr *transcript) spawn(st *model.State, batch []string) {
	if !tr.ok() || tr.coord == nil || len(batch) == 0 {
		return
	}
	var ws []*thread
	blocks := []block{textBlock("Starting " + plural(len(batch), "worker") + ": " + strings.Join(batch, ", ") + ".")}
	for _, id := range batch {
		a, _ := st.Atom(id)
		desc := strings.TrimSpace(a.Description)
		if desc == "" {
			desc = "atom " + id
		}
		deps := "none"
		if len(a.DependsOn) > 0 {
			deps = strings.Join(a.DependsOn, ", ")
		}
		w := &thread{agent: tr.agentID(), model: modelWorker, atom: id, files: workerFiles(id)}
		w.path = tr.subagentPath(w.agent)
		w.desc = id + " " + firstWords(desc, 60)
		w.prompt = "Execute Atom: " + id + " - " + desc + "\n\nDependencies resolved: " + deps
		w.task = tr.newID("toolu_01", 22)
		blocks = append(blocks, tr.taskBlock(w, "aot-worker"))
		ws = append(ws, w)
		if !tr.worked[id] {
			tr.worked[id] = true
			tr.out.Workers = append(tr.out.Workers, id)
		}
	}
	tr.respond(tr.coord, "tool_use", blocks)
	for _, w := range ws {
		tr.workers = append(tr.workers, w)
		tr.prompt(w, w.prompt, true)
		tr.takeStep(w, "Read")
	}
}

// step is one worker ending its step and taking the next: the running
// worker whose step began first.
func (tr *transcript) step() {
	if !tr.ok() || len(tr.workers) == 0 {
		return
	}
	w := tr.workers[0]
	tr.results(w, true)
	tr.takeStep(w, "")
	// the worker goes to the back: the others step before it again
	tr.workers = append(slices.DeleteFunc(tr.workers, func(x *thread) bool { return x == w }), w)
}

// askPermission is the worker of atom asking to run command: its Bash call,
// and the Notification Claude Code sends while its permission dialog
// shows, recorded as aot-tui hook records it.
func (tr *transcript) askPermission(atom, command string) {
	w := tr.worker(atom)
	if !tr.ok() || w == nil {
		return
	}
	tr.results(w, true)
	tr.respond(w, "tool_use", []block{
		textBlock("The module needs its dependencies fetched before the tests can run."),
		tr.bash(command, "Fetch the module's dependencies", "go: downloading golang.org/x/crypto v0.31.0", "", ""),
	})
	w.steps++
	if tr.hooks != "" {
		in, err := json.Marshal(map[string]string{
			"session_id": tr.session, "transcript_path": tr.main.path, "cwd": tr.cwd,
			"hook_event_name": "Notification", "notification_type": "permission_prompt", "message": permissionMessage,
		})
		if err == nil {
			err = recordHook(tr.hooks, in, tr.stamp())
		}
		if err != nil {
			tr.fail(err)
			return
		}
		tr.out.Prompts++
	}
	tr.event("permission prompt")
}

// permitted is the person answering: the call runs and has its result,
// and the session moves on.
func (tr *transcript) permitted(atom string) {
	w := tr.worker(atom)
	if !tr.ok() || w == nil {
		return
	}
	tr.results(w, true)
	tr.takeStep(w, "Bash")
	tr.event("permission given")
}

// recordHook records a hook event the way aot-tui hook does: the JSON
// Claude Code writes on its stdin, read and recorded by agent.
func recordHook(dir string, stdin []byte, at time.Time) error {
	in, err := agent.ReadHookInput(bytes.NewReader(stdin), 2*time.Second)
	if err != nil {
		return err
	}
	_, err = agent.RecordHook(dir, in, at, 200*time.Millisecond)
	return err
}

func (tr *transcript) event(what string) {
	if tr.onEvent != nil {
		tr.onEvent(what)
	}
}

// workerEnds is the worker of atom ending: its step's result, its last
// words, and the coordinator's Task call's result.
func (tr *transcript) workerEnds(atom, words string) {
	w := tr.worker(atom)
	if !tr.ok() || w == nil {
		return
	}
	tr.results(w, true)
	tr.respond(w, "end_turn", []block{textBlock(words)})
	tr.endWorker(w, words, false)
}

func (tr *transcript) endWorker(w *thread, words string, failed bool) {
	tr.workers = slices.DeleteFunc(tr.workers, func(x *thread) bool { return x == w })
	tr.resultLine(tr.coord, call{id: w.task, name: "Task", result: words, failed: failed}, w)
}

// coordinate is the coordinator's one response that records an outcome:
// each command a Bash call (the update_atom.py marks among them), their
// results written by done.
func (tr *transcript) coordinate(text string, cmds ...cmd) {
	if !tr.ok() || tr.coord == nil {
		return
	}
	tr.noted = append(tr.noted, text)
	blocks := []block{textBlock(text)}
	for _, c := range cmds {
		if c.status != "" {
			blocks = append(blocks, tr.markCall(c.atom, c.status))
			continue
		}
		blocks = append(blocks, tr.bash(c.line, c.desc, c.result, "", ""))
	}
	tr.respond(tr.coord, "tool_use", blocks)
}

// cmd is a command of the coordinator's: a line, or (status set) an
// update_atom.py mark.
type cmd struct {
	line, desc, result string
	atom, status       string
}

func markCmd(atom, status string) cmd { return cmd{atom: atom, status: status} }

func bindingCmd(atom, summary string, arts []string) cmd {
	line := script("state-contract", "add_binding.py") + " " + atom + " --summary " + shellQuote(summary)
	if len(arts) > 0 {
		line += " --artifacts " + shellQuote(strings.Join(arts, ","))
	}
	return cmd{line: line, desc: "Record " + atom + "'s binding", result: fmt.Sprintf(`{"success": true, "atom_id": %q}`, atom)}
}

func decomposeCmd(atom string, children, descs []string, reason string) cmd {
	line := script("aot-dag", "decompose_atom.py") + " " + atom + " --children " + shellQuote(strings.Join(children, ",")) +
		" --descriptions " + shellQuote(strings.Join(descs, "|||")) + " --reason " + shellQuote(reason)
	return cmd{line: line, desc: "Decompose " + atom, result: fmt.Sprintf(`{"success": true, "parent": %q, "children": %s}`, atom, jsonList(children))}
}

func switchCmd(group, next, reason string) cmd {
	line := script("aot-dag", "switch_or_branch.py") + " " + group + " " + next + " --reason " + shellQuote(reason)
	return cmd{line: line, desc: "Switch " + group + " to " + next, result: fmt.Sprintf(`{"success": true, "or_group": %q, "selected": %q}`, group, next)}
}

// verify is the coordinator's verifier checking the base_case once every
// atom is resolved, and the coordinator setting the loop completed.
func (tr *transcript) verify() {
	if !tr.ok() || tr.coord == nil {
		return
	}
	v := &thread{agent: tr.agentID(), model: modelVerifier, desc: "Verify the base_case"}
	v.path = tr.subagentPath(v.agent)
	v.prompt = "Verify the base_case of .claude/aot-loop-state.md: run every check and report each result."
	v.task = tr.task(tr.coord, v, "aot-verifier", "Every atom is resolved: the verifier checks the base_case.")
	tr.prompt(v, v.prompt, true)
	tr.respond(v, "tool_use", []block{tr.bash(script("state-contract", "verify_checklist.py"), "Run the base_case checklist", `{"passed": true, "failed": []}`, "", "")})
	tr.results(v, true)
	tr.respond(v, "end_turn", []block{textBlock("Every check of the base_case passes.")})
	tr.resultLine(tr.coord, call{id: v.task, name: "Task", result: "Every check of the base_case passes."}, v)
	tr.coordinate("The base_case is satisfied.", cmd{line: script("state-contract", "set_status.py") + " completed", desc: "Complete the loop", result: `{"success": true, "status": "completed"}`})
}

// endIteration is the coordinator's last words on iteration it (workers
// still running are stopped: a stop was requested), and the main
// thread's Task call's result.
func (tr *transcript) endIteration(it int) {
	if !tr.ok() || tr.coord == nil {
		return
	}
	words := fmt.Sprintf("Iteration %d: nothing was executable.", it)
	switch {
	case len(tr.workers) > 0:
		words = fmt.Sprintf("Iteration %d: a stop was requested; the workers were stopped.", it)
	case len(tr.noted) > 0:
		words = fmt.Sprintf("Iteration %d: %s", it, strings.Join(tr.noted, " "))
	}
	for len(tr.workers) > 0 {
		w := tr.workers[0]
		for _, c := range w.calls {
			tr.resultLine(w, call{id: c.id, name: c.name, result: "[Request interrupted by user for tool use]", failed: true}, nil)
		}
		w.calls = nil
		tr.endWorker(w, "[Request interrupted by user for tool use]", true)
	}
	tr.results(tr.coord, true)
	tr.respond(tr.coord, "end_turn", []block{textBlock(words)})
	c := tr.coord
	tr.coord = nil
	tr.resultLine(tr.main, call{id: c.task, name: "Task", result: words}, c)
}

// hookSays is the stop hook's message to the main thread (its
// systemMessage: "AoT iteration 3 | Unresolved: 4 | …").
func (tr *transcript) hookSays(text string) {
	if !tr.ok() {
		return
	}
	tr.append(tr.main, tr.line(tr.main, "system", func(l *line) {
		l.Subtype, l.Content, l.Level = "informational", text, "info"
	}))
}

// end is the main thread's last words when the loop ends.
func (tr *transcript) end(words string) {
	if !tr.ok() {
		return
	}
	tr.respond(tr.main, "end_turn", []block{textBlock(words)})
}

// ---- steps ----

// takeStep starts the worker's next step: a tool call of kind ("" the
// generator's choice) on one of its files.
func (tr *transcript) takeStep(w *thread, kind string) {
	if kind == "" {
		kind = []string{"Read", "Grep", "Edit", "Edit", "Bash", "Write"}[tr.rng.IntN(6)]
	}
	file := w.files[tr.rng.IntN(len(w.files))]
	abs := filepath.Join(tr.cwd, filepath.FromSlash(file))
	dir := path.Dir(file)
	goFile := path.Ext(file) == ".go"
	if kind == "Write" && !goFile {
		kind = "Edit"
	}
	var b block
	switch kind {
	case "Read":
		b = tr.tool("Read", map[string]any{"file_path": abs}, "     1\t// "+path.Base(file)+"\n     2\t", "")
	case "Grep":
		b = tr.tool("Grep", map[string]any{"pattern": "func [A-Z]", "path": filepath.Join(tr.cwd, filepath.FromSlash(dir)), "output_mode": "files_with_matches"}, "Found 1 file\n"+abs, "")
	case "Edit":
		b = tr.tool("Edit", map[string]any{"file_path": abs, "old_string": "return nil", "new_string": "return err"}, "The file "+abs+" has been updated.", "")
	case "Write":
		test := strings.TrimSuffix(abs, ".go") + "_test.go"
		b = tr.tool("Write", map[string]any{"file_path": test, "content": "package " + path.Base(dir) + "\n"}, "File created successfully at: "+test, "")
	default:
		if goFile {
			b = tr.bash("go test ./"+dir+"/...", "Run the tests", "ok  \texample.com/project/"+dir+"\t0.4s", "", "")
		} else {
			b = tr.bash("git diff --stat -- "+file, "Show the change", " "+file+" | 12 ++++++------", "", "")
		}
	}
	tr.respond(w, "tool_use", []block{b})
	w.steps++
}

// workerFiles are the files a worker of atom works on: the demo's files
// for it, else those the simulator records as its artifacts.
func workerFiles(atom string) []string {
	if files := demoWork[atom]; len(files) > 0 {
		return files
	}
	if arts := demoArtifacts[atom]; len(arts) > 0 {
		return arts
	}
	return []string{"src/" + strings.ToLower(atom) + ".go"}
}

// demoWork are the files the demo's workers of atoms without artifacts
// work on (A3 is decomposed, A4 backtracked).
var demoWork = map[string][]string{
	"A3": {"internal/auth/login.go", "internal/auth/credentials.go"},
	"A4": {"internal/auth/jwt.go"},
}

// ---- lines ----

// line is a transcript line, its fields in the order Claude Code writes
// them.
type line struct {
	ParentUUID    *string `json:"parentUuid"`
	IsSidechain   bool    `json:"isSidechain"`
	UserType      string  `json:"userType"`
	CWD           string  `json:"cwd"`
	SessionID     string  `json:"sessionId"`
	Version       string  `json:"version"`
	GitBranch     string  `json:"gitBranch"`
	AgentID       string  `json:"agentId,omitempty"`
	Type          string  `json:"type"`
	Subtype       string  `json:"subtype,omitempty"`
	Content       string  `json:"content,omitempty"`
	Level         string  `json:"level,omitempty"`
	Message       any     `json:"message,omitempty"`
	RequestID     string  `json:"requestId,omitempty"`
	ToolUseResult any     `json:"toolUseResult,omitempty"`
	UUID          string  `json:"uuid"`
	Timestamp     string  `json:"timestamp"`
}

// message is an assistant's message: an API response's, one content
// block a line, stop_reason null but on its last line.
type message struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Model        string  `json:"model"`
	Content      []block `json:"content"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        *usage  `json:"usage"`
}

// userMessage is a user's: a prompt (a string, or text blocks) or tool
// results.
type userMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type usage struct {
	Input         int64  `json:"input_tokens"`
	CacheCreation int64  `json:"cache_creation_input_tokens"`
	CacheRead     int64  `json:"cache_read_input_tokens"`
	Output        int64  `json:"output_tokens"`
	ServiceTier   string `json:"service_tier"`
}

// block is a content block: text, thinking, tool_use or tool_result.
type block struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Input     any    `json:"input,omitempty"`
	ToolUseID string `json:"tool_use_id,omitempty"`
	Content   string `json:"content,omitempty"`
	IsError   bool   `json:"is_error,omitempty"`
	// out is what the block costs in output tokens (not written).
	out int64
	// call is a tool_use's pending call (not written).
	call *call
}

func textBlock(s string) block { return block{Type: "text", Text: s} }
func thinkingBlock(s string) block {
	return block{Type: "thinking", Thinking: s, Signature: "c2ltdWxhdGVk"}
}

// tool is a tool_use block of th, its result to come.
func (tr *transcript) tool(name string, input map[string]any, result, markAtom string) block {
	id := tr.newID("toolu_01", 22)
	return block{Type: "tool_use", ID: id, Name: name, Input: input, call: &call{id: id, name: name, result: result, atom: markAtom}}
}

// bash is a Bash call; atom and status, when set, the mark it makes.
func (tr *transcript) bash(command, desc, result, atom, status string) block {
	b := tr.tool("Bash", map[string]any{"command": command, "description": desc}, result, atom)
	b.call.status = status
	return b
}

// task is a Task call of parent starting sub, written as its own
// response (text before it, when given); it returns the call's id.
func (tr *transcript) task(parent, sub *thread, role, text string) string {
	sub.task = tr.newID("toolu_01", 22)
	var blocks []block
	if text != "" {
		blocks = append(blocks, textBlock(text))
	}
	blocks = append(blocks, tr.taskBlock(sub, role))
	tr.respond(parent, "tool_use", blocks)
	return sub.task
}

func (tr *transcript) taskBlock(sub *thread, role string) block {
	return block{Type: "tool_use", ID: sub.task, Name: "Task", Input: map[string]any{
		"description": sub.desc, "prompt": sub.prompt, "subagent_type": "ralph-wiggum-aot:" + role,
	}}
}

// prompt writes a user's prompt: the person's to the main thread, or a
// Task's to the sub-agent it starts (as a text block, as sub-agent files
// have it).
func (tr *transcript) prompt(th *thread, text string, asBlock bool) {
	tr.append(th, tr.line(th, "user", func(l *line) {
		var content any = text
		if asBlock {
			content = []block{textBlock(text)}
		}
		l.Message = &userMessage{Role: "user", Content: content}
	}))
}

// respond writes one API response of th: a line per content block, each
// with the response's message id, request id and usage (Claude Code
// writes a response so), the last with its stop reason. Its tokens are
// counted once, for th's atom (a worker's) or the one atom in progress,
// and the update_atom.py marks it makes are then taken, as the reader
// takes them.
func (tr *transcript) respond(th *thread, stop string, blocks []block) {
	first := th.context == 0
	var out int64
	for i := range blocks {
		b := &blocks[i]
		switch b.Type {
		case "thinking":
			b.out = 80 + int64(tr.rng.IntN(400))
		case "text":
			b.out = 15 + int64(tr.rng.IntN(180))
		default:
			b.out = 40 + int64(tr.rng.IntN(260))
		}
		out += b.out
	}
	u := usage{Input: 1 + int64(tr.rng.IntN(12)), Output: out, CacheRead: th.context, ServiceTier: "standard"}
	if first {
		// the system prompt and tools: read from the cache the session
		// shares, the agent's own part written to it
		u.CacheRead = 9000 + int64(tr.rng.IntN(6000))
		u.CacheCreation = 1500 + int64(tr.rng.IntN(4000))
	} else {
		u.CacheCreation = 150 + int64(tr.rng.IntN(1800))
	}
	th.context = u.CacheRead + u.CacheCreation + u.Output
	tok := agent.Tokens{Input: u.Input, Output: u.Output, CacheCreation: u.CacheCreation, CacheRead: u.CacheRead}
	atom := th.atom
	if atom == "" && len(tr.open) == 1 {
		atom = tr.open[0]
	}
	tr.out.Responses++
	tr.out.Tokens = addTokens(tr.out.Tokens, tok)
	tr.out.ByAtom[atom] = addTokens(tr.out.ByAtom[atom], tok)

	msgID, reqID := tr.newID("msg_01", 22), tr.newID("req_011C", 20)
	lines := make([]*line, 0, len(blocks))
	for i, b := range blocks {
		var sr *string
		if i == len(blocks)-1 {
			sr = &stop
		}
		lines = append(lines, tr.line(th, "assistant", func(l *line) {
			l.Message = &message{ID: msgID, Type: "message", Role: "assistant", Model: th.model, Content: []block{b}, StopReason: sr, Usage: &u}
			l.RequestID = reqID
		}))
		if b.call != nil {
			th.calls = append(th.calls, *b.call)
			if b.call.status != "" {
				a := b.call.atom
				tr.open = slices.DeleteFunc(tr.open, func(x string) bool { return x == a })
				if b.call.status == string(model.StatusInProgress) {
					tr.open = append(tr.open, a)
				}
			}
		}
	}
	tr.append(th, lines...)
}

// results writes the results of th's calls waiting for theirs (ok false:
// they failed).
func (tr *transcript) results(th *thread, ok bool) {
	calls := th.calls
	th.calls = nil
	for _, c := range calls {
		if !ok {
			c.failed = true
			c.result = "Error: the state file no longer has what this call changes"
		}
		tr.resultLine(th, c, nil)
	}
}

// resultLine writes one tool result to th; sub is the sub-agent a Task
// call started.
func (tr *transcript) resultLine(th *thread, c call, sub *thread) {
	tr.append(th, tr.line(th, "user", func(l *line) {
		l.Message = &userMessage{Role: "user", Content: []block{{Type: "tool_result", ToolUseID: c.id, Content: c.result, IsError: c.failed}}}
		switch {
		case sub != nil:
			l.ToolUseResult = map[string]any{"status": "completed", "prompt": sub.prompt, "agentId": sub.agent, "totalToolUseCount": sub.steps}
		case c.name == "Bash":
			l.ToolUseResult = map[string]any{"stdout": c.result, "stderr": "", "interrupted": false, "isImage": false}
		}
	}))
}

// line makes th's next line of type typ.
func (tr *transcript) line(th *thread, typ string, fill func(*line)) *line {
	l := &line{IsSidechain: th.agent != "", UserType: "external", CWD: tr.cwd, SessionID: tr.session, Version: claudeVersion,
		GitBranch: "main", AgentID: th.agent, Type: typ, UUID: tr.uuid(), Timestamp: tr.stamp().Format("2006-01-02T15:04:05.000Z")}
	if th.last != "" {
		p := th.last
		l.ParentUUID = &p
	}
	th.last = l.UUID
	fill(l)
	return l
}

// append writes lines to th's file in one write.
func (tr *transcript) append(th *thread, lines ...*line) {
	if !tr.ok() {
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			tr.fail(err)
			return
		}
	}
	if err := os.MkdirAll(filepath.Dir(th.path), 0o700); err != nil {
		tr.fail(err)
		return
	}
	f, err := os.OpenFile(th.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		tr.fail(err)
		return
	}
	if fi, err := f.Stat(); err == nil && fi.Size() == 0 {
		tr.out.Files++
	}
	_, err = f.Write(buf.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		tr.fail(err)
		return
	}
	tr.out.Lines += len(lines)
}

func (tr *transcript) fail(err error) {
	if tr.out.Err == nil {
		tr.out.Err = fmt.Errorf("writing the simulated Claude Code records: %w", err)
	}
}

// stamp is the time of the next line or event: the clock's, in
// milliseconds as Claude Code writes it, always after the one before.
func (tr *transcript) stamp() time.Time {
	t := time.Now().UTC().Truncate(time.Millisecond)
	if !t.After(tr.last) {
		t = tr.last.Add(time.Millisecond)
	}
	tr.last = t
	return t
}

// ---- ids ----

func (tr *transcript) worker(atom string) *thread {
	if tr == nil {
		return nil
	}
	for _, w := range tr.workers {
		if w.atom == atom {
			return w
		}
	}
	return nil
}

func (tr *transcript) subagentPath(id string) string {
	return filepath.Join(tr.dir, tr.session, "subagents", "agent-"+id+".jsonl")
}

// uuid is a new version-4 UUID from the run's generator.
func (tr *transcript) uuid() string {
	for {
		a, b := tr.rng.Uint64(), tr.rng.Uint64()
		s := fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xfff, 0x8000|(b>>48)&0x3fff, b&0xffffffffffff)
		if !tr.ids[s] {
			tr.ids[s] = true
			return s
		}
	}
}

func (tr *transcript) agentID() string {
	for {
		s := fmt.Sprintf("%08x", tr.rng.Uint32())
		if !tr.ids[s] {
			tr.ids[s] = true
			return s
		}
	}
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// newID is prefix and n characters of base 62: msg_01…, toolu_01….
func (tr *transcript) newID(prefix string, n int) string {
	for {
		b := []byte(prefix)
		for range n {
			b = append(b, base62[tr.rng.IntN(len(base62))])
		}
		if s := string(b); !tr.ids[s] {
			tr.ids[s] = true
			return s
		}
	}
}

// ---- words ----

func script(skill, name string) string {
	return "python3 " + pluginScripts + skill + "/scripts/" + name
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func jsonList(ids []string) string {
	b, _ := json.Marshal(ids)
	if ids == nil {
		return "[]"
	}
	return string(b)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprint(n) + " " + word + "s"
}

// firstWords is s cut to at most n bytes at a word's end.
func firstWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := s[:n]
	if i := strings.LastIndexByte(cut, ' '); i > 0 {
		cut = cut[:i]
	}
	return cut + "…"
}

func addTokens(a, b agent.Tokens) agent.Tokens {
	return agent.Tokens{Input: a.Input + b.Input, Output: a.Output + b.Output, CacheCreation: a.CacheCreation + b.CacheCreation, CacheRead: a.CacheRead + b.CacheRead}
}
