#!/usr/bin/env bash
# sharebench vs nfs-cp (libnfs) over NFSv3, 1 GiB each way, on a lab of its own (needs root).
#
#   bench/nfs-vs-nfs-cp.sh [ROUNDS]
#
# Both talk to the lab's NFS-Ganesha from the client namespace and do the same work: in a new
# directory each round, a write creates a new file and a read reads a file written just before,
# one warm-up transfer and then TIMED timed ones. nfs-cp's reads go through nfs-cat to /dev/null
# (nfs-cp opens its destination O_EXCL); its times are wall-clock and include its mount, a few
# milliseconds. sharebench runs with --qd 4 (four calls in flight) on one connection, as nfs-cp
# does, and for reads once more with nconnect=2. The ratio is the median of
# the rounds' ratios (see compare.sh). Goals: write >= 1.5, read >= 1.2.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-3}
timed=3
size=1G
bytes=$((1 << 30))

source "$here/bench/lab.sh"
file_url() { echo "nfs://$SHAREBENCH_SERVER_ADDR/data/$1?version=3&nfsport=$SHAREBENCH_NFS_PORT&mountport=$SHAREBENCH_MOUNT_PORT"; }
owner=$(stat -c %u:%g "$SHAREBENCH_DATA_DIR")

# CASE is the test, or the test and the number of connections (read:2)
run_sharebench() {
  local test=${1%%:*} connections=1
  [ "$1" = "$test" ] || connections=${1#*:}
  run_sharebench_on "$SHAREBENCH_NFS3_URL&nconnect=$connections" "$test" --qd 4
}

# one timed command, bytes/s from its wall time
timed_rate() {
  local start end
  start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N)
  python3 -c "import sys; print($bytes / ($end - $start))"
}

run_peer() { # write|read
  local dir="nfs-cp-$RANDOM$RANDOM" speeds=() pass
  # a new directory, made as the lab user would own it (creating behind ganesha's back is safe)
  mkdir "$SHAREBENCH_DATA_DIR/$dir" && chown "$owner" "$SHAREBENCH_DATA_DIR/$dir"
  cat "$source_file" > /dev/null
  if [ "$1" = read ]; then
    in_lab nfs-cp "$source_file" "$(file_url "$dir/r.bin")" >/dev/null
  fi
  for ((pass = 0; pass <= timed; pass++)); do
    if [ "$1" = write ]; then
      speeds+=("$(timed_rate in_lab nfs-cp "$source_file" "$(file_url "$dir/w$pass.bin")")")
    else
      speeds+=("$(timed_rate in_lab sh -c "nfs-cat '$(file_url "$dir/r.bin")' > /dev/null")")
    fi
  done
  echo "${speeds[@]:1}"
}

echo "sharebench (--qd 4) vs nfs-cp (libnfs), NFSv3 $size, lab ganesha, median ratio of $rounds alternating rounds x $timed transfers"
printf '%-44s %9s %11s %7s\n' "case" "sb MB/s" "nfs-cp MB/s" "ratio"
measure_case "NFSv3 write" write write 1.5
measure_case "NFSv3 read" read read 1.2
# nfs-cp has one connection; Ganesha serves each connection from one thread (see nconnect.rs)
measure_case "NFSv3 read, nconnect=2" read:2 read 1.2
