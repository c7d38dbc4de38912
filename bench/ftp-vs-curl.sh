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

source "$here/bench/lab.sh"
auth="$SHAREBENCH_USER:$SHAREBENCH_PASSWORD"

run_sharebench() { run_sharebench_on "$SHAREBENCH_FTP_URL" "$1"; }

# curl doing sharebench's work: each round in a directory of its own (as sharebench works in a
# new .sharebench-<id>/, whose files the server places afresh on disk); a put writes a new file
# (the old one deleted first, untimed, as sharebench's write test does); a get reads a file
# uploaded just before (as sharebench reads the file it has just filled). One warm-up transfer,
# then $timed timed ones; prints their bytes/s.
run_peer() { # put|get
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

echo "sharebench vs $(curl --version | head -1 | cut -d' ' -f1-2), FTP $size, lab vsftpd, medians of $rounds alternating rounds x $timed transfers"
printf '%-44s %9s %11s %7s\n' "case" "sb MB/s" "curl MB/s" "ratio"
measure_case "FTP put (STOR)" write put 1.0
measure_case "FTP get (RETR)" read get 1.0
