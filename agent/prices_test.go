package agent

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A model is priced by the longest prefix that names it (provider
// prefixes taken off), else by its family (said so), else not at all
// (said so, adding nothing).
func TestPricesRate(t *testing.T) {
	p := DefaultPrices()
	for _, c := range []struct {
		model          string
		input          float64
		byFamily, none bool
	}{
		{"claude-opus-4-1-20250805", 15, false, false},
		{"claude-opus-4-5-20251101", 5, false, false},
		{"claude-opus-5-5", 4, false, false},
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", 3, false, false},
		{"claude-sonnet-5", 2, false, false},
		{"claude-3-5-haiku-20241022", 0.80, false, false},
		{"claude-opus-7-2", 4, true, false},
		{"Claude-Haiku-9", 0.10, true, false},
		{"gpt-5", 0, false, true},
		{"<synthetic>", 0, false, true},
	} {
		r, fam, ok := p.rate(c.model)
		if ok == c.none || fam != c.byFamily || r.Input != c.input {
			t.Errorf("%s: input %v, by family %v, priced %v", c.model, r.Input, fam, ok)
		}
	}
	u := Usage{}
	u.add("claude-opus-7-2", tok(1_000_000, 0, 0, 0), 1, false)
	u.add("gpt-5", tok(1_000_000, 0, 0, 0), 1, false)
	c := p.Cost(u)
	if c.USD != 4 || len(c.ByFamily) != 1 || len(c.Unpriced) != 1 || !c.Estimate || c.PricesDate != "2026-11-27" {
		t.Errorf("cost %+v", c)
	}
}

// Haiku 5.5's long prompts (over 100,000 tokens of input, cache writes
// and reads) are priced at their own rates, each response on its own.
func TestLongPromptRates(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	for i, in := range []int64{50_000, 150_000} {
		tr.Feed(FileRef{Session: "s"}, []byte(assistant(lineOpts{session: "s", uuid: "u" + itoa(i), at: at(float64(i))}, "m"+itoa(i), "claude-haiku-5-5", tok(in, 1000, 0, 0), textBlock("x"))))
	}
	got := tr.Snapshot(at(9)).Total.Cost(DefaultPrices()).USD
	want := (50_000*0.10+1000*0.50)/1e6 + (150_000*0.50+1000*2.50)/1e6
	if math.Abs(got-want) > 1e-12 {
		t.Fatalf("cost %v, want %v", got, want)
	}
}

// The prices file replaces rows and adds new ones, and dates the table;
// a bad file is one error naming the file, the line and what it takes.
func TestLoadPrices(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "prices.yaml")
	if p, err := LoadPrices(path, false); err != nil || p.Date != DefaultPrices().Date {
		t.Fatalf("missing file: %v %v", p, err)
	}
	if _, err := LoadPrices(path, true); err == nil {
		t.Fatal("a required missing file is no error")
	}
	os.WriteFile(path, []byte("date: 2027-01-15\nmodels:\n  claude-opus-4-5: {input: 1, output: 2, cache_write: 3, cache_read: 4}\n  claude-opus-9: {input: 7, output: 8}\n"), 0o644)
	p, err := LoadPrices(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := p.rate("claude-opus-4-5-20251101"); r.Input != 1 || r.CacheRead != 4 {
		t.Errorf("replaced row: %+v", r)
	}
	if r, fam, _ := p.rate("claude-opus-9-1"); r.Input != 7 || fam {
		t.Errorf("added row: %+v %v", r, fam)
	}
	if p.Date != "2027-01-15" || p.Cost(Usage{}).PricesDate != "2027-01-15" {
		t.Errorf("date %s", p.Date)
	}
	for _, bad := range []string{"models:\n  x: {input: one}\n", "modls: {}\n", "models:\n  x: {input: -1}\n", "models: [\n"} {
		os.WriteFile(path, []byte(bad), 0o644)
		_, err := LoadPrices(path, false)
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	os.WriteFile(path, []byte("models:\n  x: {input: one}\n"), 0o644)
	if _, err := LoadPrices(path, false); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("no line in %v", err)
	}
}
