// Command aot-tui watches and steers autonomous coding-agent loops: a live
// terminal view of an AoT loop's state file and its work graph, and
// corrections written back into the file. See README.md.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
