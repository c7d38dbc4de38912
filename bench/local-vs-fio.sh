#!/usr/bin/env bash
# sharebench vs fio on the same work, alternating, on the page cache of one filesystem.
#
#   bench/local-vs-fio.sh [DIR] [ROUNDS]
#
# Cases (1 GiB file, 1 worker, file warm in the page cache before every timed pass):
#   a) 4 KiB random read, psync            goal: sharebench / fio >= 1.05
#   b) 4 KiB random read, io_uring QD 32   goal: >= 1.0
#   c) 1 MiB sequential read, psync        goal: >= 1.0
# Both tools read every block exactly once per pass (fio's random map; sharebench's permutation).
# Each round runs sharebench then fio (the order alternates between rounds); the ratio is the
# median of the rounds' ratios (see compare.sh). fio is given its fastest settings for each case
# (invalidate=0 and pre_read=1 to stay in cache; fixedbufs and registerfiles with io_uring).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$here/target}
rounds=${2:-5}
size=1G

command -v fio >/dev/null || { echo "bench: fio is missing: apt-get install fio" >&2; exit 1; }
cargo build --release --quiet --manifest-path "$here/Cargo.toml"
sharebench=$here/target/release/sharebench

scratch=$(mktemp -d "$dir/bench-fio.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
fio_file=$scratch/fio.dat
fio --name=layout --filename="$fio_file" --size=$size --rw=write --bs=1M --end_fsync=1 \
    --output=/dev/null

# sharebench: one warm-up pass (warms the cache), then one counted pass; prints bytes/s
run_sharebench_case() { # test record engine-args...
  local test=$1 record=$2; shift 2
  "$sharebench" run "$scratch" --tests "$test" --file-size $size --record-size "$record" \
    --warmup 1 --runs 1 --json "$scratch/sb.json" --journal "$scratch/sb.jsonl" "$@" >/dev/null
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tests"][0]["runs"][0]["bytes_per_s"])' \
    "$scratch/sb.json"
}

# fio: pre-read the file into the cache, then one pass; prints bytes/s
run_fio() { # rw bs engine-args...
  local rw=$1 bs=$2; shift 2
  fio --name=peer --filename="$fio_file" --size=$size --rw="$rw" --bs="$bs" --numjobs=1 \
      --invalidate=0 --pre_read=1 --output-format=json "$@" > "$scratch/fio.json"
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["bw_bytes"])' \
    "$scratch/fio.json"
}

source "$here/bench/compare.sh"
# the cases below are word lists: the tool's own arguments after the common ones
run_sharebench() { run_sharebench_case $1; }
run_peer() { run_fio $1; }

echo "sharebench vs fio $(fio --version), $size file in page cache, median ratio of $rounds alternating rounds"
printf '%-44s %9s %11s %7s\n' "case" "sb MB/s" "fio MB/s" "ratio"
measure_case "a) 4 KiB random read, psync" \
  "random-read 4K --engine psync" "randread 4k --ioengine=psync" 1.05
measure_case "b) 4 KiB random read, io_uring QD 32" \
  "random-read 4K --engine io_uring --qd 32" \
  "randread 4k --ioengine=io_uring --iodepth=32 --fixedbufs=1 --registerfiles=1" 1.00
measure_case "c) 1 MiB sequential read, psync" \
  "read 1M --engine psync" "read 1M --ioengine=psync" 1.00
