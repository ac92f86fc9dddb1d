package kit

import (
	"time"

	"charm.land/bubbles/v2/key"
)

// Context is what a component is given to draw and decide: it is passed
// in, never read from a global.
type Context struct {
	// Styles are the styles to draw with (NO_COLOR already applied).
	Styles Styles
	// Keys are the key bindings in effect, by action name (a keys file
	// may have rebound them).
	Keys Keys
	// Now is the time of the message being handled: what a component
	// draws and decides with. It is read on the UI goroutine only.
	Now func() time.Time
	// Clock is the live clock, safe to call from any goroutine: for work
	// that runs in the background (a verification's timings). nil: Now.
	Clock func() time.Time
	// NoColor is set when colours are off (NO_COLOR or --no-color): what
	// colour alone would say must then be said another way.
	NoColor bool
}

// Keys are key bindings by action name, the names of a keys file.
type Keys map[string]key.Binding

// Key is the binding of the action name ("" keys when there is none).
func (k Keys) Key(name string) key.Binding { return k[name] }

// LiveClock is ctx's live clock (Clock, or Now when none is given).
func (ctx Context) LiveClock() func() time.Time {
	if ctx.Clock != nil {
		return ctx.Clock
	}
	return ctx.Now
}
