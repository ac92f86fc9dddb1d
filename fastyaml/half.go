package fastyaml

import (
	"runtime"
)

// halfMin is the size of a top-level block sequence (atoms, usually) from
// which the fast parser parses its second half on another core while it
// parses the first: on a 10,000-atom file, about a third of the time of a
// one-shot `status`. A variable so that tests can cut small sequences.
var halfMin = 128 << 10

// half is the second half of a top-level sequence, parsed by a parser of
// its own from the entry at line cut on.
type half struct {
	cut  int
	p    *fastParser
	done chan struct{}
}

// startHalf starts parsing the second half of the block sequence at
// indent whose first line is the current one, when the sequence is large
// and there is a second core; nil otherwise.
//
// The cut is a line with a dash at indent, the column of the sequence's
// own dashes. Within the subset the fast parser accepts (no multi-line
// flow or quoted scalars; block scalars are indented more than their key)
// such a line can only start an entry, so the entries from it on parse the
// same whether the parser came to it from the entries above or started
// there; and blockSequence uses the half only if its own parse of the
// first half ends exactly on the cut (otherwise it goes on alone). The
// half reads the text and its own copy of the line table from the cut on:
// the parse of a "- key:" entry rewrites its line's indentation, and the
// first half's parse reads the cut line.
func (p *fastParser) startHalf(indent, depth int) *half {
	if runtime.GOMAXPROCS(0) < 2 || p.copyValues {
		return nil
	}
	least := halfMin
	if p.halfAt > 0 {
		least = p.halfAt
	}
	cut := p.seqCut(indent, least)
	if cut < 0 {
		return nil
	}
	lines := make([]fastLine, len(p.lines))
	copy(lines[cut:], p.lines[cut:])
	h := &half{cut: cut, p: &fastParser{src: p.src, lines: lines, i: cut}, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		h.p.seqEntries(indent, depth)
	}()
	return h
}

// seqCut returns a line with a dash at indent around the middle of the
// sequence starting at the current line, or -1 when the sequence is
// smaller than least bytes.
func (p *fastParser) seqCut(indent, least int) int {
	start, end := p.i, p.i+1
	for ; end < len(p.lines); end++ {
		if p.blank(end) {
			continue
		}
		if l := p.lines[end]; l.indent < indent || (l.indent == indent && !isDashEntry(p.text(end))) {
			break
		}
	}
	if p.lines[end-1].end-p.lines[start].start < least {
		return -1
	}
	for c := start + (end-start)/2; c < end; c++ {
		if p.lines[c].indent == indent && isDashEntry(p.text(c)) && c > start {
			return c
		}
	}
	return -1
}

// joinHalf waits for h and takes its entries, where it stopped and
// whether it failed, as if p had parsed them.
func (p *fastParser) joinHalf(h *half) {
	<-h.done
	q := h.p
	if q.bad {
		p.fail(q.why)
		p.whyLine = q.whyLine
		return
	}
	p.stack = append(p.stack, q.stack...)
	p.i = q.i
	p.joined++
}
