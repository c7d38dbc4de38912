# Shared by the bench scripts that measure sharebench against a peer on a lab of their own.
# Source it after setting `here` (the repository) and `size`; it builds sharebench, starts a lab,
# loads its environment, makes a source file of `size` random bytes, and tears it all down on exit.
# Scripts then define run_sharebench TEST and run_peer DIRECTION (each prints the bytes/s of its
# timed transfers) and call measure_case.

cargo build --release --quiet --manifest-path "$here/Cargo.toml"
sharebench=$here/target/release/sharebench
scratch=$(mktemp -d "$here/target/bench.XXXXXX")
chmod 755 "$scratch"
lab=$scratch/lab
trap '"$sharebench" lab down --dir "$lab" >/dev/null 2>&1 || true; rm -rf "$scratch"' EXIT
"$sharebench" lab up --dir "$lab" >/dev/null
eval "$("$sharebench" lab env --dir "$lab")"
in_lab() { "$sharebench" lab exec --dir "$lab" -- "$@"; }
source_file=$scratch/source.bin
head -c "$size" /dev/urandom > "$source_file"

median() { python3 -c 'import statistics,sys; print(statistics.median(map(float, sys.argv[1:])))' "$@"; }

# measure_case LABEL TEST DIRECTION GOAL: alternating rounds (the order swaps each round), then
# the ratio of the medians of all timed transfers, against GOAL.
measure_case() {
  local label=$1 test=$2 direction=$3 goal=$4 sb=() peer=() round
  for ((round = 1; round <= rounds; round++)); do
    if ((round % 2)); then
      sb+=($(run_sharebench "$test")); peer+=($(run_peer "$direction"))
    else
      peer+=($(run_peer "$direction")); sb+=($(run_sharebench "$test"))
    fi
  done
  python3 - "$label" "$goal" "$(median "${sb[@]}")" "$(median "${peer[@]}")" <<'PY'
import sys
label, goal, sb, peer = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
ratio = sb / peer
verdict = "meets" if ratio >= goal else "BELOW"
print(f"{label:<28} {sb/1e6:>9.0f} {peer/1e6:>11.0f} {ratio:>7.3f}  {verdict} goal {goal:.2f}")
PY
}

# run_sharebench_on URL TEST [OPTIONS…]: one warm-up and $timed counted runs; prints their bytes/s
run_sharebench_on() {
  local url=$1 test=$2; shift 2
  in_lab "$sharebench" run "$url" --tests "$test" --file-size "$size" --record-size "${record:-1M}" \
    --warmup 1 --runs "$timed" --json "$scratch/sb.json" --journal "$scratch/sb.jsonl" "$@" >/dev/null
  python3 -c 'import json,sys; print(*[r["bytes_per_s"] for r in json.load(open(sys.argv[1]))["tests"][0]["runs"]])' \
    "$scratch/sb.json"
}
