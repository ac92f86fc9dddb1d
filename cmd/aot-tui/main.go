// Command aot-tui watches and steers autonomous coding-agent loops: a live
// terminal view of an AoT loop's state file and its work graph, and
// corrections written back into the file. See README.md.
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

func main() {
	// AOT_TUI_MEMPROFILE=FILE writes a heap profile of what is live when
	// the run ends (go tool pprof -sample_index=inuse_space aot-tui FILE).
	if path := os.Getenv("AOT_TUI_MEMPROFILE"); path != "" {
		code := run(os.Args[1:], os.Stdout, os.Stderr)
		runtime.GC()
		if f, err := os.Create(path); err != nil || pprof.WriteHeapProfile(f) != nil {
			fmt.Fprintln(os.Stderr, "aot-tui: cannot write the heap profile to "+path)
		} else {
			f.Close()
		}
		os.Exit(code)
	}
	// AOT_TUI_CPUPROFILE=FILE writes a CPU profile of the run (for
	// performance work: go tool pprof -top aot-tui FILE).
	if path := os.Getenv("AOT_TUI_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			code := run(os.Args[1:], os.Stdout, os.Stderr)
			pprof.StopCPUProfile()
			f.Close()
			os.Exit(code)
		}
		fmt.Fprintln(os.Stderr, "aot-tui: cannot write the CPU profile to "+path)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
