//go:build unix

package main

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/internal/testenv"
	"github.com/aot-loop/aot-tui/remote"
)

// BenchmarkRemoteRowLive is how long a loop's write on a remote host
// takes to reach its row here: the built binary streaming the host's
// fleet (status --scan --json --follow) over ssh to an sshd on loopback,
// 20 loops there. It reports the median and the 95th percentile
// (ms/median, ms/p95) over the writes; ns/op is their mean.
func BenchmarkRemoteRowLive(b *testing.B) {
	bin := binary(b)
	s := testenv.StartSSHD(b)
	root := b.TempDir()
	var paths []string
	for i := range 20 {
		paths = append(paths, remoteLoop(b, root, fmt.Sprintf("loop%02d", i)))
	}
	h := &remote.Host{Name: "box", Target: s.Host, Dirs: []string{root}, Transport: []string{"ssh", "-F", s.Config, "HOST", bin, "…"}}
	var mu sync.Mutex
	iter := map[string]int{}
	changed := make(chan struct{}, 1)
	hf := fleet.FollowHost(h, fleet.HostOptions{}, func(hf *fleet.HostFleet) {
		mu.Lock()
		for _, r := range hf.Rows() {
			iter[r.Path] = r.Iteration
		}
		mu.Unlock()
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer hf.Stop()
	waitIter := func(path string, n int) {
		deadline := time.After(60 * time.Second)
		for {
			mu.Lock()
			got := iter[path]
			mu.Unlock()
			if got == n {
				return
			}
			select {
			case <-changed:
			case <-deadline:
				b.Fatalf("%s never at iteration %d", path, n)
			}
		}
	}
	for _, p := range paths {
		waitIter(p, 7)
	}
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		p := paths[i%len(paths)]
		from, to := 7+i/len(paths), 8+i/len(paths)
		t0 := time.Now()
		rewrite(b, p, fmt.Sprintf("iteration: %d\n", from), fmt.Sprintf("iteration: %d\n", to))
		waitIter(p, to)
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms/median")
		b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*95/100)].Microseconds())/1000, "ms/p95")
	}
}
