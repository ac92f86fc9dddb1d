package fleettable

import (
	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/notify"
)

// notify sends the event of the alert on row r (fleet.AlertReason's why)
// to Config.Notify: once per transition, whatever Quiet and the focus,
// which are about the bell.
func (t *Table) notify(r fleet.Row, why string) {
	if t.cfg.Notify == nil {
		return
	}
	t.cfg.Notify.Send(notify.Event{Kind: notify.RowKind(r.Attention.String(), why), Loop: r.Name, Path: r.Path, Host: r.Host, Reason: why})
}
