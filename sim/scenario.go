package sim

// DemoState is the demo loop's state right after /align-goal: an aligned
// objective with a checklist base_case and a handful of atoms, one OR
// group, status pending. The demo script (demoEvents) takes it through
// progress, a decomposition, an OR backtrack, a stall and completion.
const DemoState = `---
# AoT loop state — written by aot-tui's simulator for the demo.
objective:
  goal: "Add user authentication to the web API"
  base_case:
    checklist:
      - item: "Functional requirements"
        group:
          - item: "Auth tests pass"
            check:
              type: command
              value: "go test ./internal/auth/..."
          - item: "Login endpoint answers"
            check:
              type: command
              value: "curl -fsS localhost:8080/api/login"
      - item: "Either sessions or tokens documented"
        any_of:
          - item: "Session docs"
            check:
              type: file
              value: "docs/sessions.md"
          - item: "Token docs"
            check:
              type: file
              value: "docs/tokens.md"
      - item: "No secrets in the repo"
        check:
          type: not_command
          value: "git grep -q 'BEGIN PRIVATE KEY'"
      - item: "Readable code"
        check:
          type: quality
          criteria: "Small functions, clear names, errors wrapped with context"
          pass_threshold: 3.5
  background_intent: "Customers need accounts before the billing launch"
  deliverables: "User model, password hashing, login endpoint, docs"
  definition_of_done: "Users can log in; the checklist passes"
  constraints:
    max_iterations: 12
    max_parallel_agents: 2
    max_stall_count: 3

control:
  status: pending
  iteration: 0
  stall_count: 0
  prev_pending_count: -1
  stop_requested: false
  stop_reason: null
  redirect_requested: false

atoms:
  - id: A1
    description: "User model and migration"
    status: pending
    depends_on: []

  - id: A2
    description: "Password hashing with argon2id"
    status: pending
    depends_on: [A1]

  - id: A3
    description: "Authentication logic"
    status: pending
    depends_on: [A1]

  - id: A4
    description: "Stateless JWT tokens"
    status: pending
    depends_on: [A2]
    or_group: session_strategy

  - id: A5
    description: "Server-side sessions in Redis"
    status: pending
    depends_on: [A2]
    or_group: session_strategy

  - id: A6
    description: "Login endpoint"
    status: pending
    depends_on: [A3, A4]

  - id: A7
    description: "Document the login flow"
    status: pending
    depends_on: [A6]

decompositions: []
or_groups:
  session_strategy:
    choices: [A4, A5]
    selected: A4
    failed: []
bindings: {}
trail:
  - or_group: session_strategy
    selected: A4
    reason: "Tokens keep the API stateless"
    timestamp: "2026-01-01T09:00:00Z"
corrections: []
---

# Original Prompt

Add user authentication to the web API: a user model, hashed passwords and a
login endpoint. Prefer stateless tokens if they work with our proxies.
`

// outcome is what happens to an atom a worker was given.
type outcome int

const (
	outResolve   outcome = iota
	outStall             // no result this iteration: back to pending
	outDecompose         // too big: split into children
	outFailOR            // the OR choice failed: backtrack to another
)

// demoEvent scripts the demo: at iteration it, atom id has this outcome.
// Atoms not named resolve.
type demoEvent struct {
	it  int
	id  string
	out outcome
	// children of a decomposition.
	children []string
	// words for summaries and reasons.
	text string
}

var demoEvents = []demoEvent{
	{it: 1, id: "A3", out: outDecompose, children: []string{"Request validation", "Credential check against the user store"},
		text: "Too broad for one worker: split validation from the credential check"},
	{it: 2, id: "A4", out: outFailOR, text: "JWT revocation cannot work behind the caching proxy"},
	{it: 3, id: "A5", out: outStall, text: "Redis test container flaked"},
	{it: 3, id: "A9", out: outStall, text: "Waiting on the session store"},
}

var demoSummaries = map[string]string{
	"A1": "User table with email, password hash and timestamps; migration 0007",
	"A2": "argon2id hashing with per-user salt; constant-time compare",
	"A5": "Sessions stored in Redis with a 24h sliding expiry",
	"A6": "POST /api/login returns a session cookie; rate limited",
	"A7": "docs/sessions.md describes login, logout and expiry",
	"A8": "Validates email and password shape before any lookup",
	"A9": "Checks credentials with the hasher; uniform timing on failure",
}

var demoArtifacts = map[string][]string{
	"A1": {"internal/users/model.go", "migrations/0007_users.sql"},
	"A2": {"internal/auth/hash.go"},
	"A5": {"internal/auth/session.go"},
	"A6": {"internal/http/login.go"},
	"A7": {"docs/sessions.md"},
	"A8": {"internal/auth/validate.go"},
	"A9": {"internal/auth/check.go"},
}
