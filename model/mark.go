package model

// Mark recognises a planned correction in later states of the file: after
// it is written, another writer that read the file before (the loop's
// scripts read, modify and write the whole file) can write over it, and
// the correction's author needs to know whether it is still there.
type Mark struct {
	// entry is the corrections[] entry the plan appends, and baseline how
	// many equal entries the state it was planned on already had.
	entry    *Correction
	baseline int
	// stop: a stop request (no entry). flag: the /redirect handshake
	// (no entry), and the value it sets.
	stop bool
	flag *bool
	// unstop: an undo of a stop (no entry).
	unstop bool
}

// MarkOf is the mark of p, planned for req on st.
func MarkOf(st *State, req Request, p *Plan) Mark {
	var m Mark
	switch r := req.(type) {
	case Stop:
		m.stop = true
	case SetRedirect:
		v := r.Requested
		m.flag = &v
	case *Undo:
		if r.Of == nil && r.stop != nil {
			m.stop, m.unstop = r.stop.before.StopRequested, !r.stop.before.StopRequested
		}
	}
	if p != nil && p.Correction != nil {
		c := *p.Correction
		m.entry = &c
		m.baseline = CountCorrection(st, c)
	}
	return m
}

// In reports whether st carries the correction: more entries equal to its
// corrections[] entry than the state it was planned on had; for a stop,
// stop_requested set or the loop ended; for the handshake, the value set;
// for a stop withdrawn, stop_requested clear.
func (m Mark) In(st *State) bool {
	switch {
	case m.entry != nil:
		return CountCorrection(st, *m.entry) > m.baseline
	case m.stop:
		return st.Control.StopRequested || st.Control.Status == LoopStopped || st.Control.Status == LoopCompleted
	case m.flag != nil:
		return st.Control.RedirectRequested == *m.flag
	case m.unstop:
		return !st.Control.StopRequested
	}
	return false
}

// Zero reports whether the mark recognises nothing (no plan).
func (m Mark) Zero() bool { return m.entry == nil && !m.stop && m.flag == nil && !m.unstop }

// CountCorrection counts st's corrections[] entries equal to c (time,
// type, description and trail_cleared).
func CountCorrection(st *State, c Correction) int {
	n := 0
	for _, x := range st.Corrections {
		if x.Timestamp == c.Timestamp && x.Type == c.Type && x.Description == c.Description && x.TrailCleared == c.TrailCleared {
			n++
		}
	}
	return n
}
