package agent

import (
	"slices"
	"sort"
	"strings"
	"time"
)

// FileRef names the transcript a line comes from: its session, and the
// sub-agent whose file it is ("" for the session's main file,
// <session>.jsonl; the id of <session>/subagents/agent-<id>.jsonl).
type FileRef struct {
	Session string
	Agent   string
	// Path is the file's path, shown as the session's file (optional).
	Path string
}

// IterationMark says that the loop's iteration was N from At on.
type IterationMark struct {
	At time.Time
	N  int
}

// Tracker builds the model of the loop's sessions from their lines, in
// the order each file has them: no I/O of its own (Follow feeds it). It
// is not safe for concurrent use; Snapshot's result is.
type Tracker struct {
	project string
	prices  *Prices
	// ids are the loop's atom ids, known the same as a set, made when
	// first read (knownAtoms): a status of a loop whose sessions name no
	// atom never makes it.
	ids      []string
	known    map[string]bool
	maxSteps int
	since    time.Time

	sessions map[string]*sessionState
	agents   map[agentKey]*agentState
	order    []*agentState

	responses []response
	seen      map[uint64]int32
	models    []string
	modelIdx  map[string]int16
	atoms     []string
	atomIdx   map[string]int32

	// owner maps the uuids of sidechain lines (sub-agents older versions
	// wrote into the main file) to their agent.
	owner map[uint64]*agentState
	tasks map[string]*taskCall

	transcriptMarks []IterationMark
	stateMarks      []IterationMark
	iterDirty       bool

	total  Usage
	byAtom map[string]*Usage
	byIter map[int]*Usage

	lines, unrecognised int
	unknownTypes        map[string]int
	unknownBlocks       map[string]int
	notes               []string

	hooks    []HookEvent
	hookSeen bool
}

type agentKey struct{ session, id string }

type sessionState struct {
	id      string
	file    string
	started time.Time
	last    time.Time
	// open are the atoms marked in_progress and not yet resolved or
	// pending, in the order they were marked.
	open []string
	main *agentState
}

type agentState struct {
	a    Agent
	idx  int32
	sess *sessionState
	task *taskCall
	// prompted: its first prompt was seen; promptHash is its hash.
	prompted   bool
	promptHash uint64
	// steps and usage are the copies the last Snapshot handed out, made
	// again only when they changed (stepsDirty, usageDirty): snapshots
	// share what did not change, and never change it.
	steps      []Step
	usage      []ModelTokens
	stepsDirty bool
	usageDirty bool
}

type taskCall struct {
	id, session  string
	at           time.Time
	desc, role   string
	atom         string
	promptHash   uint64
	promptPrefix string
	agent        *agentState
	ended        bool
}

// response is one API response, counted once however many lines repeat
// it.
type response struct {
	at     time.Time
	agent  int32
	atom   int32 // -1: none
	model  int16
	long   bool
	tokens Tokens
}

// TrackerOptions tune a Tracker.
type TrackerOptions struct {
	// Project is the loop's directory: paths in it are shown relative.
	Project string
	// Prices price the costs (default DefaultPrices).
	Prices *Prices
	// Atoms are the loop's atom ids, to find the atom a Task's description
	// names; without them, words shaped like A1 or A4_jwt are taken.
	Atoms []string
	// MaxSteps bounds the steps kept per agent (default 32).
	MaxSteps int
	// Since: responses before it are not counted (the loop had not
	// started); the zero time counts them all.
	Since time.Time
}

// NewTracker returns an empty Tracker.
func NewTracker(o TrackerOptions) *Tracker {
	if o.Prices == nil {
		o.Prices = DefaultPrices()
	}
	if o.MaxSteps <= 0 {
		o.MaxSteps = 32
	}
	t := &Tracker{
		project: o.Project, prices: o.Prices, maxSteps: o.MaxSteps, since: o.Since,
		sessions: map[string]*sessionState{}, agents: map[agentKey]*agentState{},
		seen: map[uint64]int32{}, modelIdx: map[string]int16{}, atomIdx: map[string]int32{},
		owner: map[uint64]*agentState{}, tasks: map[string]*taskCall{},
		byAtom: map[string]*Usage{}, byIter: map[int]*Usage{},
		unknownTypes: map[string]int{}, unknownBlocks: map[string]int{},
	}
	t.SetAtoms(o.Atoms)
	return t
}

// SetAtoms sets the loop's atom ids (the state file changed).
func (t *Tracker) SetAtoms(ids []string) {
	t.ids, t.known = ids, nil
}

// knownAtoms is the loop's atom ids as a set.
func (t *Tracker) knownAtoms() map[string]bool {
	if t.known == nil {
		t.known = make(map[string]bool, len(t.ids))
		for _, id := range t.ids {
			t.known[id] = true
		}
	}
	return t.known
}

// SetIterations sets the iterations read from the state file's versions
// (each version's control.iteration at its time), which take precedence
// over the transcript's marks from the first of them on.
func (t *Tracker) SetIterations(marks []IterationMark) {
	m := slices.Clone(marks)
	slices.SortStableFunc(m, func(a, b IterationMark) int { return a.At.Compare(b.At) })
	if !slices.Equal(m, t.stateMarks) {
		t.stateMarks = m
		t.iterDirty = true
	}
}

// Note adds a note (sanitised) to the snapshot's Notes, once.
func (t *Tracker) Note(s string) {
	s = clean(s, messageRunes)
	if !slices.Contains(t.notes, s) {
		t.notes = append(t.notes, s)
		if len(t.notes) > 32 {
			t.notes = t.notes[len(t.notes)-32:]
		}
	}
}

// bookkeeping are the line types Claude Code writes that say nothing of
// the work: skipped without counting them as not recognised.
var bookkeeping = map[string]bool{
	"summary": true, "file-history-snapshot": true, "queue-operation": true,
	"progress": true, "custom-title": true, "tag": true, "attachment": true,
}

// Feed reads one line of the file ref (without its line break).
func (t *Tracker) Feed(ref FileRef, raw []byte) {
	l, ok := ParseLine(raw)
	t.FeedLine(ref, &l, ok)
}

// FeedLine takes one line ParseLine read (ok as it said).
func (t *Tracker) FeedLine(ref FileRef, l *Line, ok bool) {
	t.lines++
	if !ok {
		t.unrecognised++
		return
	}
	switch {
	case l.Type == "user" || l.Type == "assistant" || l.Type == "system":
	case bookkeeping[l.Type]:
		return
	default:
		t.unrecognised++
		name := l.Type
		if name == "" {
			name = "(none)"
		}
		if len(t.unknownTypes) < 32 || t.unknownTypes[clean(name, 40)] > 0 {
			t.unknownTypes[clean(name, 40)]++
		}
		return
	}
	for _, k := range l.UnknownKinds {
		if len(t.unknownBlocks) < 32 || t.unknownBlocks[clean(k, 40)] > 0 {
			t.unknownBlocks[clean(k, 40)]++
		}
	}
	sess := t.session(ref.Session)
	if ref.Agent == "" && ref.Path != "" && sess.file == "" {
		sess.file = ref.Path
	}
	at := l.Timestamp
	if at.IsZero() {
		at = sess.last
	}
	if !at.IsZero() {
		if sess.started.IsZero() || at.Before(sess.started) {
			sess.started = at
		}
		if at.After(sess.last) {
			sess.last = at
		}
	}
	ag := t.agentFor(ref, l, sess, at)
	if at.After(ag.a.Last) {
		ag.a.Last = at
	}
	switch l.Type {
	case "assistant":
		t.assistant(ag, sess, l, at)
	case "user":
		t.user(ag, sess, l, at)
	case "system":
		if l.HasText {
			t.iterationText(l.Text, at)
		}
	}
}

func (t *Tracker) session(id string) *sessionState {
	s := t.sessions[id]
	if s == nil {
		s = &sessionState{id: id}
		t.sessions[id] = s
		s.main = t.newAgent(s, "main", "main")
	}
	return s
}

func (t *Tracker) newAgent(s *sessionState, id, role string) *agentState {
	a := &agentState{sess: s, idx: int32(len(t.order)), a: Agent{Session: clean(s.id, nameRunes), ID: clean(id, nameRunes), Role: role}}
	t.agents[agentKey{s.id, id}] = a
	t.order = append(t.order, a)
	return a
}

// agentFor is the agent a line belongs to.
func (t *Tracker) agentFor(ref FileRef, l *Line, s *sessionState, at time.Time) *agentState {
	var a *agentState
	switch {
	case ref.Agent != "":
		a = t.agents[agentKey{s.id, ref.Agent}]
		if a == nil {
			a = t.newAgent(s, ref.Agent, "agent")
		}
	case l.IsSidechain:
		if l.ParentUUID != "" {
			a = t.owner[fnv64s(l.ParentUUID)]
		}
		if a == nil {
			id := l.UUID
			if id == "" {
				id = "sidechain-" + itoa(len(t.order))
			}
			a = t.agents[agentKey{s.id, id}]
			if a == nil {
				a = t.newAgent(s, id, "agent")
			}
		}
		if l.UUID != "" {
			t.owner[fnv64s(l.UUID)] = a
		}
	default:
		a = s.main
	}
	if a.a.Started.IsZero() && !at.IsZero() {
		a.a.Started = at
	}
	return a
}

// atomFor is the atom a response or step of a is attributed to: the atom
// its Task's description names, else the one atom its session has in
// progress, else none.
func (t *Tracker) atomFor(a *agentState) string {
	if a.a.Atom != "" {
		return a.a.Atom
	}
	if len(a.sess.open) == 1 {
		return a.sess.open[0]
	}
	return ""
}

func (t *Tracker) assistant(a *agentState, s *sessionState, l *Line, at time.Time) {
	if l.HasUsage {
		t.count(a, l, at)
	}
	for i := range l.Blocks {
		b := &l.Blocks[i]
		if b.Kind != BlockToolUse {
			continue
		}
		step := Step{At: at, Tool: clean(b.Name, nameRunes), Summary: summarize(b, t.project), Atom: t.atomFor(a), id: b.ID}
		switch b.Name {
		case "Bash", "PowerShell":
			for _, m := range marksIn(b.field("command")) {
				atom := clean(m.atom, nameRunes)
				step.Atom = atom
				s.open = slices.DeleteFunc(s.open, func(x string) bool { return x == atom })
				if m.status == "in_progress" {
					s.open = append(s.open, atom)
				}
			}
		case "Task", "Agent":
			if tc := t.taskCall(a, s, b, at); tc.atom != "" {
				step.Atom = tc.atom
			}
		}
		t.addStep(a, step)
	}
}

func (t *Tracker) addStep(a *agentState, step Step) {
	a.a.StepCount++
	a.stepsDirty = true
	if len(a.a.Steps) >= t.maxSteps {
		a.a.Steps = slices.Delete(a.a.Steps, 0, len(a.a.Steps)-t.maxSteps+1)
	}
	a.a.Steps = append(a.a.Steps, step)
}

func (t *Tracker) taskCall(parent *agentState, s *sessionState, b *Block, at time.Time) *taskCall {
	desc := b.field("description")
	tc := &taskCall{id: b.ID, session: s.id, at: at, desc: clean(firstLine(desc), summaryRunes), role: clean(roleOf(b.field("subagent_type")), nameRunes)}
	tc.atom = clean(atomIn(desc, t.knownAtoms()), nameRunes)
	if tc.atom == "" {
		tc.atom = clean(atomIn(firstLine(b.field("prompt")), t.knownAtoms()), nameRunes)
	}
	if h, ok := b.fieldHash("prompt"); ok {
		tc.promptHash = h
		tc.promptPrefix = b.field("prompt")
	}
	if b.ID != "" {
		t.tasks[b.ID] = tc
	}
	// A sub-agent whose first prompt was read before the call (another
	// file read first): linked now.
	for _, a := range t.order {
		if a.sess == s && a.task == nil && a.prompted && a.promptHash != 0 && a.promptHash == tc.promptHash {
			t.link(a, tc)
			break
		}
	}
	if n, ok := iterationIn(desc); ok && (tc.role == "coordinator" || strings.Contains(desc, "AoT")) {
		t.addMark(IterationMark{At: at, N: n})
	}
	return tc
}

// link makes a the sub-agent tc started.
func (t *Tracker) link(a *agentState, tc *taskCall) {
	if tc.agent != nil || a.task != nil {
		return
	}
	tc.agent, a.task = a, tc
	a.a.Role, a.a.Description = tc.role, tc.desc
	if tc.role != "coordinator" {
		a.a.Atom = tc.atom
	}
	if tc.ended {
		a.a.Ended = true
	}
}

func (t *Tracker) user(a *agentState, s *sessionState, l *Line, at time.Time) {
	results := false
	for i := range l.Blocks {
		b := &l.Blocks[i]
		if b.Kind != BlockToolResult {
			continue
		}
		results = true
		t.finish(a, b.ToolUseID, at, b.IsError)
		if tc := t.tasks[b.ToolUseID]; tc != nil {
			tc.ended = true
			if tc.agent == nil && l.ResultAgentID != "" {
				if sub := t.agents[agentKey{s.id, l.ResultAgentID}]; sub != nil {
					t.link(sub, tc)
				}
			}
			if tc.agent != nil {
				tc.agent.a.Ended = true
			}
			delete(t.tasks, b.ToolUseID)
		}
	}
	if results || l.IsMeta {
		return
	}
	text, hash, ok := l.Text, l.TextHash, l.HasText
	if !ok {
		for _, b := range l.Blocks {
			if b.Kind == BlockText {
				text, hash, ok = b.Text, b.TextHash, true
				break
			}
		}
	}
	if !ok {
		return
	}
	if a != s.main && !a.prompted {
		a.prompted, a.promptHash = true, hash
		t.linkPrompt(a, s, text, hash)
	}
	t.iterationText(text, at)
}

// linkPrompt finds the Task that sent a sub-agent its first prompt.
func (t *Tracker) linkPrompt(a *agentState, s *sessionState, text string, hash uint64) {
	if a.task != nil {
		return
	}
	var best *taskCall
	for _, tc := range t.tasks {
		if tc.session != s.id || tc.agent != nil {
			continue
		}
		if tc.promptHash == hash || (len(text) >= 32 && strings.HasPrefix(tc.promptPrefix, text[:32])) {
			if best == nil || tc.at.Before(best.at) {
				best = tc
			}
		}
	}
	if best != nil {
		t.link(a, best)
		return
	}
	// No Task known: name it by its prompt.
	a.a.Description = clean(firstLine(text), summaryRunes)
	a.a.Atom = clean(atomIn(firstLine(text), t.knownAtoms()), nameRunes)
}

// finish ends the step of the tool call id: in a, else in another agent
// of its session.
func (t *Tracker) finish(a *agentState, id string, at time.Time, failed bool) {
	if id == "" {
		return
	}
	end := func(ag *agentState) bool {
		for i := len(ag.a.Steps) - 1; i >= 0; i-- {
			if st := &ag.a.Steps[i]; st.id == id {
				st.Done, st.Failed, st.DoneAt = true, failed, at
				ag.stepsDirty = true
				return true
			}
		}
		return false
	}
	if end(a) {
		return
	}
	for _, ag := range t.order {
		if ag != a && ag.sess == a.sess && end(ag) {
			return
		}
	}
}

func (t *Tracker) iterationText(text string, at time.Time) {
	if i := strings.Index(text, "AoT iteration"); i >= 0 {
		if n, ok := iterationIn(text[i+4:]); ok {
			t.addMark(IterationMark{At: at, N: n})
		}
	}
}

func (t *Tracker) addMark(m IterationMark) {
	if m.At.IsZero() {
		return
	}
	i := sort.Search(len(t.transcriptMarks), func(i int) bool { return t.transcriptMarks[i].At.After(m.At) })
	if i > 0 && t.transcriptMarks[i-1] == m {
		return
	}
	t.transcriptMarks = slices.Insert(t.transcriptMarks, i, m)
	if i < len(t.transcriptMarks)-1 || (len(t.responses) > 0 && !t.responses[len(t.responses)-1].at.Before(m.At)) {
		t.iterDirty = true
	}
}

// iterationAt is the loop's iteration at time at: from the state file's
// versions when they reach back that far, else from the transcript's
// marks; 0 before any.
func (t *Tracker) iterationAt(at time.Time) int {
	marks := t.transcriptMarks
	if len(t.stateMarks) > 0 && !at.Before(t.stateMarks[0].At) {
		marks = t.stateMarks
	}
	i := sort.Search(len(marks), func(i int) bool { return marks[i].At.After(at) })
	if i == 0 {
		return 0
	}
	return marks[i-1].N
}

// count counts a response's usage once: a later line of the same response
// (same message id, else request id) only raises it to the largest usage
// it reported.
func (t *Tracker) count(a *agentState, l *Line, at time.Time) {
	if l.Model == "<synthetic>" && l.Usage.Total() == 0 {
		return
	}
	if !t.since.IsZero() && !at.IsZero() && at.Before(t.since) {
		return
	}
	key := l.MsgID
	if key == "" {
		key = l.RequestID
	}
	if key == "" {
		key = l.UUID
	}
	if key == "" {
		return
	}
	h := fnv64s(key)
	if idx, ok := t.seen[h]; ok {
		r := &t.responses[idx]
		grown := r.tokens.most(l.Usage)
		if grown == r.tokens {
			return
		}
		t.apply(r, -1)
		r.tokens = grown
		r.long = t.prices.long(t.models[r.model], grown)
		t.apply(r, 1)
		return
	}
	model := clean(l.Model, nameRunes)
	if model == "" {
		model = "unknown"
	}
	r := response{at: at, agent: a.idx, atom: t.intern(t.atomFor(a)), model: t.internModel(model), tokens: l.Usage}
	r.long = t.prices.long(model, r.tokens)
	t.responses = append(t.responses, r)
	t.seen[h] = int32(len(t.responses) - 1)
	t.apply(&t.responses[len(t.responses)-1], 1)
}

// apply adds (sign 1) or takes away (-1) a response from every total.
func (t *Tracker) apply(r *response, sign int) {
	tok := r.tokens
	if sign < 0 {
		tok = Tokens{}.sub(tok)
	}
	model := t.models[r.model]
	t.total.add(model, tok, sign, r.long)
	t.order[r.agent].a.Usage.add(model, tok, sign, r.long)
	t.order[r.agent].usageDirty = true
	atom := ""
	if r.atom >= 0 {
		atom = t.atoms[r.atom]
	}
	u := t.byAtom[atom]
	if u == nil {
		u = &Usage{}
		t.byAtom[atom] = u
	}
	u.add(model, tok, sign, r.long)
	if !t.iterDirty {
		n := t.iterationAt(r.at)
		ui := t.byIter[n]
		if ui == nil {
			ui = &Usage{}
			t.byIter[n] = ui
		}
		ui.add(model, tok, sign, r.long)
	}
}

func (t *Tracker) intern(atom string) int32 {
	if atom == "" {
		return -1
	}
	if i, ok := t.atomIdx[atom]; ok {
		return i
	}
	t.atoms = append(t.atoms, atom)
	t.atomIdx[atom] = int32(len(t.atoms) - 1)
	return int32(len(t.atoms) - 1)
}

func (t *Tracker) internModel(m string) int16 {
	if i, ok := t.modelIdx[m]; ok {
		return i
	}
	if len(t.models) >= 1<<14 {
		return t.modelIdx["unknown"]
	}
	t.models = append(t.models, m)
	t.modelIdx[m] = int16(len(t.models) - 1)
	return int16(len(t.models) - 1)
}

// reiterate counts every response's iteration again (the marks changed).
func (t *Tracker) reiterate() {
	t.byIter = map[int]*Usage{}
	for i := range t.responses {
		r := &t.responses[i]
		n := t.iterationAt(r.at)
		u := t.byIter[n]
		if u == nil {
			u = &Usage{}
			t.byIter[n] = u
		}
		u.add(t.models[r.model], r.tokens, 1, r.long)
	}
	t.iterDirty = false
}

// Snapshot is the activity now: a copy, safe to hand to another goroutine.
func (t *Tracker) Snapshot(now time.Time) *Activity {
	if t.iterDirty {
		t.reiterate()
	}
	act := &Activity{
		Total: t.total.clone(), ByAtom: make(map[string]Usage, len(t.byAtom)), ByIteration: make(map[int]Usage, len(t.byIter)),
		Lines: t.lines, Unrecognised: t.unrecognised, UnknownTypes: cloneMap(t.unknownTypes), UnknownBlocks: cloneMap(t.unknownBlocks),
		Notes: slices.Clone(t.notes), HookSeen: t.hookSeen, At: now,
	}
	for k, u := range t.byAtom {
		if u.Responses > 0 {
			act.ByAtom[k] = u.clone()
		}
	}
	for k, u := range t.byIter {
		if u.Responses > 0 {
			act.ByIteration[k] = u.clone()
		}
	}
	switch {
	case len(t.stateMarks) > 0:
		act.IterationsFrom = "state"
	case len(t.transcriptMarks) > 0:
		act.IterationsFrom = "transcript"
	}
	sessions := make([]*sessionState, 0, len(t.sessions))
	for _, s := range t.sessions {
		sessions = append(sessions, s)
	}
	slices.SortFunc(sessions, func(a, b *sessionState) int {
		if c := a.started.Compare(b.started); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	for _, s := range sessions {
		act.Sessions = append(act.Sessions, Session{ID: clean(s.id, nameRunes), File: clean(s.file, 400), Started: s.started, Last: s.last})
		var subs []*agentState
		for _, a := range t.order {
			if a.sess == s && a != s.main {
				subs = append(subs, a)
			}
		}
		slices.SortStableFunc(subs, func(a, b *agentState) int { return a.a.Started.Compare(b.a.Started) })
		for _, a := range append([]*agentState{s.main}, subs...) {
			if a.stepsDirty || a.steps == nil {
				a.steps, a.stepsDirty = slices.Clone(a.a.Steps), false
			}
			if a.usageDirty || a.usage == nil {
				a.usage, a.usageDirty = slices.Clone(a.a.Usage.ByModel), false
			}
			c := a.a
			c.Steps, c.Usage.ByModel = a.steps, a.usage
			act.Agents = append(act.Agents, c)
		}
	}
	for i := range act.Agents {
		a := &act.Agents[i]
		if st, ok := a.Current(); ok && (act.Now == nil || st.At.After(act.Now.Since)) {
			act.Now = &Now{Agent: a.Name(), Role: a.Role, Atom: st.Atom, Step: st, Since: st.At}
		}
	}
	act.NeedsYou = t.needsYou(act)
	return act
}

func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
