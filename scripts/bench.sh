#!/usr/bin/env bash
# Prints aot-tui's performance table: the Go benchmarks across the project
# (parse/validate/derive, layout, View(), correction plan+apply+write) and
# the whole-program measures (write-to-screen latency in tmux, idle CPU,
# RSS). Usage: scripts/bench.sh [-short]   (-short: fewer iterations)
set -euo pipefail
cd "$(dirname "$0")/.."

benchtime=1s
updates=50
idle=10s
writes=100
if [ "${1:-}" = "-short" ]; then benchtime=100ms; updates=15; idle=3s; writes=30; fi

command -v tmux >/dev/null || { echo "bench.sh needs tmux (apt-get install -y tmux)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/aot-tui" ./cmd/aot-tui

echo "## aot-tui performance — $(date -u +%Y-%m-%d), $(nproc) cores, $(go version | awk '{print $3}'), $(uname -sm)"
echo
echo "| measure | result | notes |"
echo "|---|---|---|"
go test -run '^$' -bench . -benchmem -benchtime "$benchtime" ./... 2>/dev/null \
  | awk '/^Benchmark/ {
      name=$1; sub(/-[0-9]+$/, "", name); sub(/^Benchmark/, "", name)
      ns=$3; unit="ns"
      t=ns; if (ns >= 1e6) { t=sprintf("%.2f ms", ns/1e6) } else if (ns >= 1e3) { t=sprintf("%.1f µs", ns/1e3) } else { t=sprintf("%d ns", ns) }
      mem=""; for (i=4;i<=NF;i++) { if ($(i+1)=="B/op") mem=sprintf("%.1f MB/op", $i/1048576); if ($(i+1)=="allocs/op") mem=mem sprintf(", %d allocs/op", $i) }
      printf("| %s | %s | %s |\n", name, t, mem)
    }'
go run ./scripts/perf -bin "$work/aot-tui" -updates "$updates" -idle "$idle" -rss-writes "$writes"
