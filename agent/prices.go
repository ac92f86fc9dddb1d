package agent

import (
	"errors"
	"fmt"
	"github.com/aot-loop/aot-tui/internal/appfiles"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Rate is what a model's tokens cost, in US dollars per million tokens.
type Rate struct {
	Input      float64 `yaml:"input" json:"input"`
	Output     float64 `yaml:"output" json:"output"`
	CacheWrite float64 `yaml:"cache_write" json:"cache_write"`
	// CacheWrite1h prices the one-hour cache's writes (0: twice Input, the
	// published multiplier).
	CacheWrite1h float64 `yaml:"cache_write_1h" json:"cache_write_1h"`
	CacheRead    float64 `yaml:"cache_read" json:"cache_read"`
	// LongPrompt, when set, prices a response whose prompt (input + cache
	// writes + cache reads) is over LongPromptTokens at its rates instead.
	LongPromptTokens int64 `yaml:"long_prompt_tokens" json:"long_prompt_tokens,omitempty"`
	LongPrompt       *Rate `yaml:"long_prompt" json:"long_prompt,omitempty"`
}

// Price is a rate for the models whose id starts with Prefix (after any
// provider prefix, such as Bedrock's "us.anthropic."); the longest prefix
// that matches wins.
type Price struct {
	Prefix string
	Rate   Rate
}

// Prices is a dated price table.
type Prices struct {
	// Date is the day the prices were read from their source.
	Date   string
	Source string
	List   []Price
}

// DefaultPrices is the price table aot-tui ships: Anthropic's published
// API prices, read on 2026-11-27 from the model pages of
// https://platform.claude.com/docs/en/about-claude/pricing and
// https://platform.claude.com/docs/en/about-claude/models (Opus 5.5,
// Opus 5, Sonnet 5.5, Sonnet 5, Haiku 5.5, Haiku 4.5, and the older
// models' rows of the pricing table). Costs computed from it are
// estimates: a subscription is not billed per token, batch and
// fast modes and long-context rates of older models are not modelled, and
// prices change (the prices file overrides any row, LoadPrices). A model
// no row names is priced by its family (opus, sonnet, haiku) at the
// newest model's rates of that family, and said so (Cost.ByFamily).
func DefaultPrices() *Prices {
	r := func(in, out, write, read float64) Rate {
		return Rate{Input: in, Output: out, CacheWrite: write, CacheRead: read}
	}
	haiku55 := r(0.10, 0.50, 0.125, 0.01)
	haiku55.CacheWrite1h = 0.20
	long := r(0.50, 2.50, 0.625, 0.05)
	long.CacheWrite1h = 1.00
	haiku55.LongPromptTokens, haiku55.LongPrompt = 100_000, &long
	return &Prices{
		Date:   "2026-11-27",
		Source: "platform.claude.com/docs/en/about-claude/pricing",
		List: []Price{
			{"claude-fable-5-1", r(10, 50, 12.50, 0.25)},
			{"claude-fable-5", r(10, 50, 12.50, 1)},
			{"claude-mythos-5-1", r(10, 50, 12.50, 0.25)},
			{"claude-mythos-5", r(10, 50, 12.50, 1)},
			{"claude-opus-5-5", r(4, 20, 5, 0.20)},
			{"claude-opus-5", r(5, 25, 6.25, 0.50)},
			{"claude-opus-4-8", r(5, 25, 6.25, 0.50)},
			{"claude-opus-4-7", r(5, 25, 6.25, 0.50)},
			{"claude-opus-4-6", r(5, 25, 6.25, 0.50)},
			{"claude-opus-4-5", r(5, 25, 6.25, 0.50)},
			{"claude-opus-4", r(15, 75, 18.75, 1.50)}, // Opus 4 and 4.1
			{"claude-3-opus", r(15, 75, 18.75, 1.50)},
			{"claude-sonnet-5-5", r(2, 10, 2.50, 0.20)},
			{"claude-sonnet-5", r(2, 10, 2.50, 0.20)},
			{"claude-sonnet-4", r(3, 15, 3.75, 0.30)}, // 4, 4.5, 4.6
			{"claude-3-7-sonnet", r(3, 15, 3.75, 0.30)},
			{"claude-3-5-sonnet", r(3, 15, 3.75, 0.30)},
			{"claude-haiku-5-5", haiku55},
			{"claude-haiku-4-5", r(1, 5, 1.25, 0.10)},
			{"claude-3-5-haiku", r(0.80, 4, 1, 0.08)},
			{"claude-3-haiku", r(0.25, 1.25, 0.30, 0.03)},
			// The families, for models newer than the table.
			{"opus", r(4, 20, 5, 0.20)},
			{"sonnet", r(2, 10, 2.50, 0.20)},
			{"haiku", haiku55},
		},
	}
}

// families are the rows that price a model by its family alone.
var families = []string{"opus", "sonnet", "haiku"}

// rate finds the rate of model: the longest prefix row that names it, else
// its family's row (byFamily), else none (ok false).
func (p *Prices) rate(model string) (r Rate, byFamily, ok bool) {
	id := strings.ToLower(model)
	if i := strings.Index(id, "claude-"); i > 0 {
		id = id[i:] // us.anthropic.claude-…, vertex's publishers/…/claude-…
	}
	best := -1
	for i, e := range p.List {
		if slices.Contains(families, e.Prefix) {
			continue
		}
		if strings.HasPrefix(id, e.Prefix) && (best < 0 || len(e.Prefix) > len(p.List[best].Prefix)) {
			best = i
		}
	}
	if best >= 0 {
		return p.List[best].Rate, false, true
	}
	for _, f := range families {
		if strings.Contains(id, f) {
			for _, e := range p.List {
				if e.Prefix == f {
					return e.Rate, true, true
				}
			}
		}
	}
	return Rate{}, false, false
}

// Cost is an estimated cost, always labelled as one.
type Cost struct {
	USD float64 `json:"usd"`
	// Estimate is always true: it is priced from a dated table, not billed.
	Estimate bool `json:"estimate"`
	// PricesDate is the date of the table it was priced from.
	PricesDate string `json:"prices_date"`
	// ByFamily lists the models no row of the table names, priced by
	// their family; Unpriced those that have none (they add nothing).
	ByFamily []string `json:"by_family,omitempty"`
	Unpriced []string `json:"unpriced,omitempty"`
}

// Cost prices u. A response's usage is per model; the one-hour cache's
// writes (when the transcript tells them apart) at their own rate.
func (p *Prices) Cost(u Usage) Cost {
	c := Cost{Estimate: true, PricesDate: p.Date}
	for _, m := range u.ByModel {
		r, fam, ok := p.rate(m.Model)
		if !ok {
			if m.Tokens.Total() > 0 && !slices.Contains(c.Unpriced, m.Model) {
				c.Unpriced = append(c.Unpriced, m.Model)
			}
			continue
		}
		if fam && !slices.Contains(c.ByFamily, m.Model) {
			c.ByFamily = append(c.ByFamily, m.Model)
		}
		c.USD += r.price(m.Tokens.sub(m.Long))
		if m.Long.Total() > 0 {
			long := r
			if r.LongPrompt != nil {
				long = *r.LongPrompt
			}
			c.USD += long.price(m.Long)
		}
	}
	return c
}

// long says whether one response of model with usage t is priced at its
// rate's long-prompt rates (its prompt, input + cache writes + cache
// reads, is over the threshold).
func (p *Prices) long(model string, t Tokens) bool {
	r, _, ok := p.rate(model)
	return ok && r.LongPrompt != nil && t.Input+t.CacheCreation+t.CacheRead > r.LongPromptTokens
}

func (r Rate) price(t Tokens) float64 {
	w1h := r.CacheWrite1h
	if w1h == 0 {
		w1h = 2 * r.Input
	}
	fiveMin := t.CacheCreation - t.CacheCreation1h
	return (float64(t.Input)*r.Input + float64(t.Output)*r.Output + float64(fiveMin)*r.CacheWrite +
		float64(t.CacheCreation1h)*w1h + float64(t.CacheRead)*r.CacheRead) / 1e6
}

// PricesFile is where the prices file is looked for:
// $XDG_CONFIG_HOME/aot-tui/prices.yaml, else ~/.config/aot-tui/prices.yaml
// (beside the keys file); "" when neither can be named.
func PricesFile() string { return appfiles.ConfigFile("prices.yaml") }

// pricesFile is the prices file's shape:
//
//	date: 2027-01-15            # the day you read the prices (shown with every cost)
//	models:                     # USD per million tokens, by model id prefix
//	  claude-opus-6: {input: 4, output: 20, cache_write: 5, cache_read: 0.2}
//	  sonnet: {input: 2, output: 10, cache_write: 2.5, cache_read: 0.2}
type pricesFile struct {
	Date   string          `yaml:"date"`
	Models map[string]Rate `yaml:"models"`
}

// LoadPrices is the default table with the prices file at path over it:
// each of its rows replaces or adds the row of that prefix, and its date
// (if any) dates the table. A missing file is the default table unless
// required; a file that does not parse is an error naming the file, the
// line and what to do.
func LoadPrices(path string, required bool) (*Prices, error) {
	p := DefaultPrices()
	if path == "" {
		return p, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return p, nil
	}
	if err != nil {
		return nil, fmt.Errorf("prices file %s: %w", path, err)
	}
	var f pricesFile
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("prices file %s: %s — it takes `date: YYYY-MM-DD` and `models:` with one `PREFIX: {input, output, cache_write, cache_read}` (USD per million tokens) each", path, textfmt.OneLine(err.Error()))
	}
	for prefix, r := range f.Models {
		prefix = strings.ToLower(strings.TrimSpace(prefix))
		if prefix == "" || r.Input < 0 || r.Output < 0 || r.CacheWrite < 0 || r.CacheRead < 0 || r.CacheWrite1h < 0 {
			return nil, fmt.Errorf("prices file %s: model %q: prices are a non-empty model id prefix with rates of 0 or more", path, prefix)
		}
		i := slices.IndexFunc(p.List, func(e Price) bool { return e.Prefix == prefix })
		if i >= 0 {
			p.List[i].Rate = r
		} else {
			p.List = append(p.List, Price{Prefix: prefix, Rate: r})
		}
	}
	if f.Date != "" {
		p.Date = f.Date
	}
	if len(f.Models) > 0 {
		p.Source = path
	}
	return p, nil
}
