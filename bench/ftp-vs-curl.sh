#!/usr/bin/env bash
# sharebench vs curl over FTP, 1 GiB each way, on a lab of its own (needs root).
#
#   bench/ftp-vs-curl.sh [ROUNDS]
#
# Both tools talk to the lab's vsftpd from the client namespace over the unshaped veth and do
# the same work: in a new directory each round, a put writes a new file and a get reads a file
# written just before. (Where the server puts a file matters on these machines: the first
# writes into a new directory ran at a third of the speed of writes into an old one.) Each round
# runs sharebench then curl (the order alternates between rounds), each with one warm-up
# transfer and then TIMED timed transfers, so the server's page cache is equally warm for both;
# curl's upload source is read into the client's cache right before. FTP puts vary widely from
# one transfer to the next on these machines, so the ratio is of the medians of all timed
# transfers (rounds x TIMED for each tool).
# Goal: sharebench / curl >= 1.0 for put and for get.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5}
timed=3
size=1G
record=${RECORD:-1M}

cargo build --release --quiet --manifest-path "$here/Cargo.toml"
sharebench=$here/target/release/sharebench
scratch=$(mktemp -d "$here/target/bench-ftp.XXXXXX")
chmod 755 "$scratch"
lab=$scratch/lab
trap '"$sharebench" lab down --dir "$lab" >/dev/null 2>&1 || true; rm -rf "$scratch"' EXIT
"$sharebench" lab up --dir "$lab" >/dev/null
eval "$("$sharebench" lab env --dir "$lab")"
in_lab() { "$sharebench" lab exec --dir "$lab" -- "$@"; }
source_file=$scratch/source.bin
head -c $size /dev/urandom > "$source_file"
auth="$SHAREBENCH_USER:$SHAREBENCH_PASSWORD"

# sharebench: one warm-up transfer, then $timed counted; prints their bytes/s
run_sharebench() { # test
  in_lab "$sharebench" run "$SHAREBENCH_FTP_URL" --tests "$1" --file-size $size --record-size $record \
    --warmup 1 --runs $timed --json "$scratch/sb.json" --journal "$scratch/sb.jsonl" >/dev/null
  python3 -c 'import json,sys; print(*[r["bytes_per_s"] for r in json.load(open(sys.argv[1]))["tests"][0]["runs"]])' \
    "$scratch/sb.json"
}

# curl doing sharebench's work: each round in a directory of its own (as sharebench works in a
# new .sharebench-<id>/, whose files the server places afresh on disk); a put writes a new file
# (the old one deleted first, untimed, as sharebench's write test does); a get reads a file
# uploaded just before (as sharebench reads the file it has just filled). One warm-up transfer,
# then $timed timed ones; prints their bytes/s.
run_curl() { # put|get
  local speeds=() pass dir="curl-$RANDOM$RANDOM"
  local url="${SHAREBENCH_FTP_URL}$dir/c.bin"
  cat "$source_file" > /dev/null
  in_lab curl -sS -u "$auth" -Q "MKD $dir" -o /dev/null "$SHAREBENCH_FTP_URL"
  if [ "$1" = get ]; then
    in_lab curl -sS -u "$auth" -T "$source_file" "$url"
  fi
  for ((pass = 0; pass <= timed; pass++)); do
    if [ "$1" = put ]; then
      ((pass == 0)) || in_lab curl -sS -u "$auth" -Q "DELE $dir/c.bin" -o /dev/null "$SHAREBENCH_FTP_URL"
      speeds+=("$(in_lab curl -sS -u "$auth" -T "$source_file" -w '%{speed_upload}' "$url")")
    else
      speeds+=("$(in_lab curl -sS -u "$auth" -o /dev/null -w '%{speed_download}' "$url")")
    fi
  done
  in_lab curl -sS -u "$auth" -Q "DELE $dir/c.bin" -Q "RMD $dir" -o /dev/null "$SHAREBENCH_FTP_URL"
  echo "${speeds[@]:1}"
}

median() { python3 -c 'import statistics,sys; print(statistics.median(map(float, sys.argv[1:])))' "$@"; }

measure_case() { # label sharebench-test curl-direction
  local label=$1 test=$2 direction=$3 sb=() peer=()
  for ((round = 1; round <= rounds; round++)); do
    if ((round % 2)); then
      sb+=($(run_sharebench "$test")); peer+=($(run_curl "$direction"))
    else
      peer+=($(run_curl "$direction")); sb+=($(run_sharebench "$test"))
    fi
  done
  python3 - "$label" "$(median "${sb[@]}")" "$(median "${peer[@]}")" <<'PY'
import sys
label, sb, peer = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
ratio = sb / peer
print(f"{label:<28} {sb/1e6:>9.0f} {peer/1e6:>9.0f} {ratio:>7.3f}  {'meets' if ratio >= 1.0 else 'BELOW'} goal 1.00")
PY
}

echo "sharebench vs $(curl --version | head -1 | cut -d' ' -f1-2), FTP $size, lab vsftpd, medians of $rounds alternating rounds x $timed transfers"
printf '%-28s %9s %9s %7s\n' "case" "sb MB/s" "curl MB/s" "ratio"
measure_case "FTP put (STOR)" write put
measure_case "FTP get (RETR)" read get
