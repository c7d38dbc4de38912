#!/usr/bin/env bash
# sharebench's raw TCP baseline vs iperf3 on loopback, one stream, 1 GiB per transfer.
#
#   bench/tcp-vs-iperf3.sh [ROUNDS]
#
# Both send the same bytes to their own server on this host: sharebench baseline tcp to a
# sharebench serve agent, iperf3 -n to iperf3 -s. Each tool does one warm-up transfer and TIMED
# timed ones per round; rounds alternate the order and the ratio is the median of the rounds'
# ratios (see compare.sh). iperf3's rate is its receiver's; sharebench's ends when the agent
# confirms the last byte. Goal: sharebench / iperf3 >= 1.0.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-8}
timed=3
size=1G
source "$here/bench/compare.sh"

cargo build --release --quiet --manifest-path "$here/Cargo.toml"
sharebench=$here/target/release/sharebench
scratch=$(mktemp -d)
sb_port=52${RANDOM:0:2}
iperf_port=$((sb_port + 1))
"$sharebench" serve --listen "127.0.0.1:$sb_port" > "$scratch/serve.out" &
serve_pid=$!
iperf3 -s -p "$iperf_port" > /dev/null 2>&1 &
iperf_pid=$!
trap 'kill $serve_pid $iperf_pid 2>/dev/null || true; rm -rf "$scratch"' EXIT
sleep 0.5

run_sharebench() {
  "$sharebench" baseline tcp "127.0.0.1:$sb_port" --size "$size" --warmup 1 --runs "$timed" \
    --json "$scratch/sb.json" --journal "$scratch/sb.jsonl" > /dev/null
  python3 -c 'import json,sys; print(*[r["bytes_per_s"] for r in json.load(open(sys.argv[1]))["baselines"][0]["runs"]])' \
    "$scratch/sb.json"
}

run_peer() {
  local pass speeds=()
  for ((pass = 0; pass <= timed; pass++)); do
    speeds+=("$(iperf3 -c 127.0.0.1 -p "$iperf_port" -n "$size" -J |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 8)')")
  done
  echo "${speeds[@]:1}"
}

echo "sharebench baseline tcp vs $(iperf3 --version | head -1 | cut -d' ' -f1-2), loopback, 1 stream, $size, median ratio of $rounds alternating rounds x $timed transfers"
printf '%-44s %9s %11s %7s\n' "case" "sb MB/s" "iperf3" "ratio"
measure_case "TCP, 1 stream, upload" tcp tcp 1.0
