#!/usr/bin/env bash
# sharebench vs curl over FTP, 1 GiB each way, on a lab of its own (needs root).
#
#   bench/ftp-vs-curl.sh [ROUNDS]
#
# Both tools talk to the lab's vsftpd from the client namespace over the unshaped veth and do
# the same work, each in a new directory each round: one warm-up transfer, then TIMED timed ones.
# A put writes the file anew each time (the old one deleted first, untimed, as sharebench's
# write test does); a get reads a file written just before the warm-up. Each round runs
# sharebench and curl back to back, the order swapping every round, and the ratio is the median
# of the rounds' ratios (see compare.sh).
#
# Both end every session with QUIT and wait for the reply: vsftpd finishes storing a put for a
# while after its 226 (0.4 s after 1 GiB here) and answers QUIT only then, so a client that hung
# up at once would carry that work into its next transfer.
# Goal: sharebench / curl >= 1.0 for put and for get.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-8}
timed=3
warmup=1
size=1G
record=${RECORD:-1M}

source "$here/bench/lab.sh"
auth="$SHAREBENCH_USER:$SHAREBENCH_PASSWORD"

run_sharebench() { run_sharebench_on "$SHAREBENCH_FTP_URL" "$1"; }

# curl doing sharebench's work in a directory of its own; prints the timed transfers' bytes/s
run_peer() { # put|get
  local dir="curl-$RANDOM$RANDOM" speeds=() pass
  local url="${SHAREBENCH_FTP_URL}$dir/c.bin"
  cat "$source_file" > /dev/null
  in_lab curl -sS -u "$auth" -Q "MKD $dir" -o /dev/null "$SHAREBENCH_FTP_URL"
  [ "$1" = put ] || in_lab curl -sS -u "$auth" -T "$source_file" "$url"
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

echo "sharebench vs $(curl --version | head -1 | cut -d' ' -f1-2), FTP $size, lab vsftpd, median ratio of $rounds alternating rounds x $timed transfers"
printf '%-44s %9s %11s %7s\n' "case" "sb MB/s" "curl MB/s" "ratio"
measure_case "FTP put (STOR)" write put 1.0
measure_case "FTP get (RETR)" read get 1.0
