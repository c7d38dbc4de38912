# Shared by the bench scripts that measure sharebench against a peer on a lab of their own.
# Source it after setting `here` (the repository), `size` and `timed`; it builds sharebench, starts
# a lab, loads its environment, makes a source file of `size` random bytes, and tears it all down
# on exit. It brings in compare.sh for measure_case.

source "$here/bench/compare.sh"

cargo build --release --quiet --manifest-path "$here/Cargo.toml"
sharebench=$here/target/release/sharebench
scratch=$(mktemp -d "$here/target/bench.XXXXXX")
chmod 755 "$scratch"
lab=$scratch/lab
trap '"$sharebench" lab down --dir "$lab" >/dev/null 2>&1 || true; rm -rf "$scratch"' EXIT
# start_lab [LAB-UP OPTIONS…]: (re)starts the lab with these options and loads its environment
start_lab() {
  "$sharebench" lab down --dir "$lab" >/dev/null 2>&1 || true
  "$sharebench" lab up --dir "$lab" "$@" >/dev/null
  eval "$("$sharebench" lab env --dir "$lab")"
}
start_lab
in_lab() { "$sharebench" lab exec --dir "$lab" -- "$@"; }
source_file=$scratch/source.bin
head -c "$size" /dev/urandom > "$source_file"

# run_sharebench_on URL TEST [OPTIONS…]: $warmup (default 1) warm-up and $timed counted runs;
# prints their bytes/s. The lab's serve agent is left alone (--serve none): its sampling would
# load the server the peer does not load.
run_sharebench_on() {
  local url=$1 test=$2; shift 2
  in_lab "$sharebench" run "$url" --tests "$test" --file-size "$size" --record-size "${record:-1M}" \
    --warmup "${warmup:-1}" --runs "$timed" --json "$scratch/sb.json" --journal "$scratch/sb.jsonl" --serve none \
    "$@" >/dev/null
  python3 -c 'import json,sys; print(*[r["bytes_per_s"] for r in json.load(open(sys.argv[1]))["tests"][0]["runs"]])' \
    "$scratch/sb.json"
}
