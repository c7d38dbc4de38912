#!/usr/bin/env bash
# How long `sharebench report` takes on a full iozone matrix (9 tests × 14 file sizes × 13
# record sizes × 5 runs, two hours of client metrics) and how much the page weighs, against
# the issue's budget of 1 s and 2 MB.
#
#   bench/report.sh [ROUNDS]
#
# The matrix document is the one tests/report.rs generates; it is made first when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
matrix=target/tmp/report-artifacts/full-matrix.json
cargo build --release --quiet
if [ ! -f "$matrix" ]; then
  cargo test --release --quiet --test report a_full_matrix_report >/dev/null
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
times=()
for ((round = 1; round <= rounds; round++)); do
  start=$(date +%s.%N)
  target/release/sharebench report "$matrix" -o "$out/report.html" >/dev/null
  end=$(date +%s.%N)
  times+=("$(python3 -c "print($end - $start)")")
done
bytes=$(stat -c %s "$out/report.html")
python3 - "$bytes" "${times[@]}" <<'PY'
import statistics, sys
size, times = int(sys.argv[1]), [float(t) for t in sys.argv[2:]]
median = statistics.median(times)
print(f"full matrix report: median {median:.3f} s over {len(times)} rounds "
      f"({'meets' if median < 1 else 'ABOVE'} the 1 s budget), "
      f"{size / 1e6:.2f} MB ({'meets' if size < 2e6 else 'ABOVE'} the 2 MB budget)")
PY
