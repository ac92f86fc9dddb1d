#!/usr/bin/env bash
# Measures issue 26's validate goal, the 100,000-atom time over the
# 10,000-atom time of BenchmarkValidateScale, for the working tree and a
# base revision, the two alternated process by process. Each process runs
# the benchmark twelve times and gives the minimum of each size: a run is
# only ever slowed by the machine, and on a shared VM the 10,000-atom time
# also varies from one process to the next, so a figure near the goal
# needs many processes.
#
# Usage: scripts/validate-ratio.sh BASE_REV [PROCESSES]   (default 10)
# Prints one line a process, then the medians of each build.
set -euo pipefail
cd "$(dirname "$0")/.."

base=${1:?usage: scripts/validate-ratio.sh BASE_REV [PROCESSES]}
rounds=${2:-10}

work=$(mktemp -d)
cleanup() {
  git worktree remove --force "$work/base" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

git worktree add -q --detach "$work/base" "$base"
(cd "$work/base" && go test -c -o "$work/base.test" ./statefile)
go test -c -o "$work/work.test" ./statefile

# one BUILD: one process, the minimum of each size and their ratio.
one() {
  "$work/$1.test" -test.run '^$' -test.bench 'ValidateScale$' -test.benchtime 40x \
    -test.count 12 -test.cpu 1 |
    awk -v b="$1" '/atoms=10000 /  { if (!a || $3 < a) a = $3 }
                   /atoms=100000 / { if (!c || $3 < c) c = $3 }
                   END { printf "%s %.3f %.2f %.2f\n", b, a / 1e6, c / 1e6, c / a }'
}

echo "# build, 10,000 atoms (ms), 100,000 atoms (ms), ratio — $(date -u +%H:%M) UTC, load $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?)"
for _ in $(seq "$rounds"); do
  one base
  one work
done | tee "$work/runs"
echo "# medians, $(date -u +%H:%M) UTC, load $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?)"
for b in base work; do
  awk -v b="$b" 'BEGIN { n = 0 }
    $1 == b { a[n] = $2 + 0; c[n] = $3 + 0; r[n] = $4 + 0; n++ }
    function med(x, n,   i, j, t) {
      for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
      return n % 2 ? x[int(n / 2)] : (x[n / 2 - 1] + x[n / 2]) / 2
    }
    END { printf "%s: 10,000 atoms %.3f ms, 100,000 atoms %.2f ms, ratio x%.2f\n", b, med(a, n), med(c, n), med(r, n) }' "$work/runs"
done
