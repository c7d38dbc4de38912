#!/usr/bin/env bash
# sharebench vs curl over FTP, 1 GiB each way, on a lab of its own (needs root).
#
#   bench/ftp-vs-curl.sh [ROUNDS]
#
# Both tools talk to the lab's vsftpd from the client namespace over the unshaped veth and do
# the same work, one transfer at a time, alternating: each round is one sharebench run (a new
# .sharebench-<id>/ directory, one counted run, no warm-up) and one curl transfer into a new
# directory of its own, the order swapping every round. A put writes a new file; a get reads a
# file written just before (sharebench fills its file untimed, curl uploads it untimed), so the
# server's page cache is equally warm for both. Single alternating transfers, not blocks of
# several, because FTP puts on these machines drift by tens of percent within a minute (the
# lab's disk is thin-provisioned and mounted with discard): a block of one tool's transfers
# meets different weather than the other's, and the ratio of blocks said more about the weather
# than about the tools. The ratio is the median of the rounds' ratios (see compare.sh).
# Goal: sharebench / curl >= 1.0 for put and for get.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-10}
timed=1
warmup=0
size=1G
record=${RECORD:-1M}

source "$here/bench/lab.sh"
auth="$SHAREBENCH_USER:$SHAREBENCH_PASSWORD"

run_sharebench() { run_sharebench_on "$SHAREBENCH_FTP_URL" "$1"; }

# curl doing sharebench's work in a directory of its own; prints the timed transfer's bytes/s
run_peer() { # put|get
  local dir="curl-$RANDOM$RANDOM" speed
  local url="${SHAREBENCH_FTP_URL}$dir/c.bin"
  cat "$source_file" > /dev/null
  in_lab curl -sS -u "$auth" -Q "MKD $dir" -o /dev/null "$SHAREBENCH_FTP_URL"
  if [ "$1" = put ]; then
    speed=$(in_lab curl -sS -u "$auth" -T "$source_file" -w '%{speed_upload}' "$url")
  else
    in_lab curl -sS -u "$auth" -T "$source_file" "$url"
    speed=$(in_lab curl -sS -u "$auth" -o /dev/null -w '%{speed_download}' "$url")
  fi
  in_lab curl -sS -u "$auth" -Q "DELE $dir/c.bin" -Q "RMD $dir" -o /dev/null "$SHAREBENCH_FTP_URL"
  echo "$speed"
}

echo "sharebench vs $(curl --version | head -1 | cut -d' ' -f1-2), FTP $size, lab vsftpd, median ratio of $rounds alternating single transfers"
printf '%-44s %9s %11s %7s\n' "case" "sb MB/s" "curl MB/s" "ratio"
measure_case "FTP put (STOR)" write put 1.0
measure_case "FTP get (RETR)" read get 1.0
