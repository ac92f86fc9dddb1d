package verify

import (
	"time"

	"github.com/aot-loop/aot-tui/model"
)

// ReportJSON is a run as `aot-tui verify --json` prints it. passed,
// checklist and skipped are verify_checklist.py's keys, and each item
// keeps the keys of verify_command.py / verify_file.py (item, passed,
// type, command or path, exit_code or exists, evidence, output_summary,
// skipped, group_results, any_of_results, skipped_items); the rest are
// aot-tui's own.
type ReportJSON struct {
	// passed is true when every checkable item passed and at least one
	// check did (exit code 0).
	Passed    bool       `json:"passed"`
	Checklist []ItemJSON `json:"checklist"`
	// Skipped lists the items a person judges, "name (type: quality)".
	Skipped []string `json:"skipped"`

	Result     Outcome `json:"result"`
	Format     string  `json:"format"`
	StateFile  string  `json:"state_file,omitempty"`
	Dir        string  `json:"dir"`
	StartedAt  string  `json:"started_at"`
	DurationMS int64   `json:"duration_ms"`
	TimeoutS   float64 `json:"timeout_s"`
	Counts     Counts  `json:"counts"`
	Stopped    bool    `json:"stopped,omitempty"`
}

// ItemJSON is one item of ReportJSON.
type ItemJSON struct {
	Item string `json:"item"`
	// Passed is null for an item a person judges (and one not run).
	Passed        *bool       `json:"passed"`
	Type          string      `json:"type,omitempty"`
	Command       *string     `json:"command,omitempty"`
	Path          *string     `json:"path,omitempty"`
	ExitCode      *int        `json:"exit_code,omitempty"`
	Exists        *bool       `json:"exists,omitempty"`
	Evidence      string      `json:"evidence"`
	OutputSummary *string     `json:"output_summary,omitempty"`
	Skipped       bool        `json:"skipped,omitempty"`
	SkippedItems  []string    `json:"skipped_items,omitempty"`
	GroupResults  *[]ItemJSON `json:"group_results,omitempty"`
	AnyOfResults  *[]ItemJSON `json:"any_of_results,omitempty"`

	Result     Outcome `json:"result"`
	Position   string  `json:"position"`
	Reason     string  `json:"reason,omitempty"`
	TimedOut   bool    `json:"timed_out,omitempty"`
	NotFound   bool    `json:"not_found,omitempty"`
	MatchCount *int    `json:"match_count,omitempty"`
	Stdout     *string `json:"stdout,omitempty"`
	Stderr     *string `json:"stderr,omitempty"`
	// OutputOmitted is how many bytes of stdout and stderr were cut out of
	// the middle of what is shown.
	OutputOmitted int64  `json:"output_omitted_bytes,omitempty"`
	StartedAt     string `json:"started_at,omitempty"`
	DurationMS    *int64 `json:"duration_ms,omitempty"`
}

// JSON is the report as --json prints it.
func (r *Report) JSON() ReportJSON {
	out := ReportJSON{
		Passed:     r.Passed(),
		Checklist:  []ItemJSON{},
		Skipped:    []string{},
		Result:     r.Outcome,
		Format:     "checklist",
		Dir:        r.Dir,
		StartedAt:  r.Started.Format(time.RFC3339),
		DurationMS: r.Duration.Milliseconds(),
		TimeoutS:   r.Timeout.Seconds(),
		Counts:     r.Counts,
		Stopped:    r.Stopped,
	}
	if r.Legacy {
		out.Format = "legacy"
	}
	for _, it := range r.Items {
		out.Checklist = append(out.Checklist, itemJSON(it))
	}
	for _, l := range Leaves(r.Items) {
		if l.Outcome == NotCheckable {
			out.Skipped = append(out.Skipped, l.Item+" (type: "+string(l.Type)+")")
		}
	}
	return out
}

func itemJSON(r *Result) ItemJSON {
	j := ItemJSON{Item: r.Item, Evidence: r.Evidence, Result: r.Outcome, Position: r.Pos(), Reason: r.Reason}
	switch r.Outcome {
	case Pass, Fail:
		b := r.Outcome == Pass
		j.Passed = &b
	case NotCheckable:
		j.Skipped = r.Kind == "check"
	}
	if r.Kind == "group" || r.Kind == "any_of" {
		children := []ItemJSON{}
		for _, c := range r.Children {
			children = append(children, itemJSON(c))
			if c.Outcome == NotCheckable {
				j.SkippedItems = append(j.SkippedItems, c.Item)
			}
		}
		if r.Kind == "group" {
			j.GroupResults = &children
		} else {
			j.AnyOfResults = &children
		}
		return j
	}
	if r.Kind != "check" {
		return j
	}
	j.Type = string(r.Type)
	if !r.Started.IsZero() {
		j.StartedAt = r.Started.Format(time.RFC3339Nano)
		ms := r.Duration.Milliseconds()
		j.DurationMS = &ms
	}
	switch r.Type {
	case model.CheckCommand, model.CheckNotCommand:
		value, code, summary := r.Value, r.ExitCode, r.OutputSummary()
		j.Command, j.ExitCode, j.OutputSummary = &value, &code, &summary
		j.TimedOut, j.NotFound = r.TimedOut, r.NotFound
		if r.Ran {
			stdout, stderr := r.Stdout.Text, r.Stderr.Text
			j.Stdout, j.Stderr = &stdout, &stderr
			j.OutputOmitted = r.Stdout.Omitted + r.Stderr.Omitted
		}
	case model.CheckFile, model.CheckNotFile:
		value, exists := r.Value, r.Exists
		j.Path, j.Exists = &value, &exists
		if r.IsGlob {
			n := r.Matches
			j.MatchCount = &n
		}
	}
	return j
}
