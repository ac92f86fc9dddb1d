package dagdraw_test

import (
	"fmt"

	"github.com/aot-loop/aot-tui/dagdraw"
)

// A caller with its own graph builds it and takes the drawing as text.
func ExampleBuilder() {
	var b dagdraw.Builder
	b.Node("fetch", "Fetch", dagdraw.Resolved).
		Node("lint", "Lint", dagdraw.InProgress).
		Node("test", "Unit tests", dagdraw.Pending).
		Node("ship", "Ship", dagdraw.Pending).
		Edge("fetch", "lint").Edge("fetch", "test").
		Edge("lint", "ship").Edge("test", "ship").
		Ready("test")
	fmt.Println("pipeline:")
	fmt.Println(dagdraw.Draw(b.Graph(), dagdraw.Options{NodeWidth: 20}).Plain())
	// Output:
	// pipeline:
	//            ╭──────────────────╮
	//            │ ● fetch Fetch    │
	//            ╰────────┬─────────╯
	//          ┌──────────┴───────────┐
	// ╭────────▼─────────╮   ╭────────▼─────────╮
	// │ ◐ lint Lint      │   │▸○ test Unit tests│
	// ╰────────┬─────────╯   ╰────────┬─────────╯
	//          └───────────┬──────────┘
	//             ╭────────▼─────────╮
	//             │ ○ ship Ship      │
	//             ╰──────────────────╯
}
