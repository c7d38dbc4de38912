#!/usr/bin/env bash
# sharebench vs smbclient over SMB 3.1.1, 1 GiB each way, on a lab of its own (needs root).
#
#   bench/smb-vs-smbclient.sh [ROUNDS] [MODES]      MODES: any of "plain signed encrypted"
#
# Both tools talk to the lab's smbd from the client namespace over the unshaped veth and do the
# same work: one warm-up transfer, then TIMED timed ones, each tool in a directory of its own. A
# put writes the file anew each time (the old one deleted first, as sharebench's write test
# does); a get reads a file written just before the warm-up. smbclient's rate is the one it
# reports for each transfer; sharebench's is its runs' rate. Rounds alternate the order and the
# ratio is the median of the rounds' ratios (see compare.sh).
#
# The lab runs three ways: plain (signing off), signed (server signing = mandatory) and encrypted
# (server smb encrypt = required). For each case the script also prints the client CPU seconds
# per GiB of both tools: sharebench's from its runs' client_cpu_s, smbclient's from its process
# (user + system over all its transfers, warm-up included).
#
# Goals: throughput >= 1.2 x smbclient where smbd is not saturated (puts; signed and encrypted
# sessions) and >= 1.0 x where it is (plain gets: one smbd process uses a whole core), and client
# CPU per GiB <= 0.8 x smbclient's in every case.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5}
modes=${2:-"plain signed encrypted"}
timed=3
warmup=1
size=1G
# smbclient moves a file in requests of the server's maximum size (8 MiB from smbd), pipelined;
# sharebench does the same work with records of that size, two in flight
record=${RECORD:-8M}

source "$here/bench/lab.sh"
cpu_log=$scratch/cpu.log

# sharebench doing its part; logs its client CPU per GiB of the timed runs
run_sharebench() { # write|read
  run_sharebench_on "$SHAREBENCH_SMB_URL" "$1" --qd "${QD:-2}"
  python3 - "$scratch/sb.json" "$1" >> "$cpu_log" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["tests"][0]["runs"]
print("sharebench", sys.argv[2], sum(r["client_cpu_s"] for r in runs) / (sum(r["bytes"] for r in runs) / 2**30))
PY
}

# smbclient doing the same in one session; prints the timed transfers' bytes/s, logs its CPU
run_peer() { # put|get
  local dir="smbclient-$RANDOM$RANDOM" commands pass out
  cat "$source_file" > /dev/null
  commands="mkdir $dir"
  [ "$1" = put ] || commands+="; put $source_file $dir/c.bin"
  for ((pass = 0; pass <= timed; pass++)); do
    if [ "$1" = put ]; then
      ((pass == 0)) || commands+="; del $dir/c.bin"
      commands+="; put $source_file $dir/c.bin"
    else
      commands+="; get $dir/c.bin /dev/null"
    fi
  done
  commands+="; del $dir/c.bin; rmdir $dir"
  out=$(PASSWD=$SHAREBENCH_PASSWORD in_lab /usr/bin/time -f "cpu %U %S" smbclient \
    "//$SHAREBENCH_SERVER_ADDR/bench" -p "$SHAREBENCH_SMB_PORT" -U "$SHAREBENCH_USER" -c "$commands" 2>&1)
  python3 - "$1" "$timed" "$cpu_log" <<PY
import re, sys
kind, timed, log = sys.argv[1], int(sys.argv[2]), sys.argv[3]
out = """$out"""
verb = "putting" if kind == "put" else "getting"
rates = [float(r) * 1024 for r in re.findall(verb + r" file .*?\(([0-9.]+) (?:kb/s|KiloBytes/sec)\)", out)]
# a get of the file just put is not part of the measure
rates = rates[-(timed + 1):][1:]
user, system = map(float, re.search(r"cpu ([0-9.]+) ([0-9.]+)", out).groups())
transfers = timed + 1 + (kind == "get")
with open(log, "a") as f:
    print("smbclient", kind, (user + system) / transfers / ($(numfmt --from=iec "$size") / 2**30), file=f)
print(*rates)
PY
}

# report_cpu LABEL: both tools' median CPU seconds per GiB since the last report, and the goal
report_cpu() {
  python3 - "$1" "$cpu_log" <<'PY'
import statistics, sys
label, log = sys.argv[1], sys.argv[2]
cpu = {}
for line in open(log):
    tool, _, seconds = line.split()
    cpu.setdefault(tool, []).append(float(seconds))
sb, peer = statistics.median(cpu["sharebench"]), statistics.median(cpu["smbclient"])
verdict = "meets" if sb <= 0.8 * peer else "ABOVE"
print(f"{'  client CPU s/GiB':<44} {sb:>9.3f} {peer:>11.3f} {sb / peer:>7.3f}  {verdict} goal 0.80")
PY
  : > "$cpu_log"
}

echo "sharebench vs $(smbclient --version), SMB $size, lab smbd, median ratio of $rounds alternating rounds x $timed transfers"
printf '%-44s %9s %11s %7s\n' "case" "sb MB/s" "smbclient" "ratio"
for mode in $modes; do
  case $mode in
    plain) start_lab; put_goal=1.2; get_goal=1.0 ;;
    signed) start_lab --smb-signing required; put_goal=1.2; get_goal=1.2 ;;
    encrypted) start_lab --smb-encrypt; put_goal=1.2; get_goal=1.2 ;;
    *) echo "unknown mode $mode (plain, signed, encrypted)" >&2; exit 2 ;;
  esac
  : > "$cpu_log"
  measure_case "SMB put, $mode" write put "$put_goal"
  report_cpu "put, $mode"
  measure_case "SMB get, $mode" read get "$get_goal"
  report_cpu "get, $mode"
done
