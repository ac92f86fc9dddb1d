package model

// StuckClear reports whether m's stuck memo holds that no atom can be
// stuck while every status is known (what its last PredictOutlook found).
func (m *Validator) StuckClear() bool { return m.stuck.clear && m.stuck.sh != nil }
