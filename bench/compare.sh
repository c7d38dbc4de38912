# Shared by the bench scripts: alternating rounds of sharebench and its peer, and their ratio. A
# script defines run_sharebench CASE and run_peer CASE (each prints the bytes/s of its timed
# passes, space-separated) and sets `rounds`, then calls measure_case.
#
# The ratio is the median over rounds of each round's ratio (sharebench's median pass over the
# peer's), not the ratio of overall medians: the two tools of a round run back to back, so a
# machine that drifts (these VMs do, by tens of percent within a minute) moves both and the
# round's ratio stays true, where overall medians would mix different weather.

# measure_case LABEL SHAREBENCH-CASE PEER-CASE GOAL: the order swaps each round, so neither tool
# always runs on a machine the other has just warmed or loaded.
measure_case() {
  local label=$1 sb_case=$2 peer_case=$3 goal=$4 rounds_out="" round sb peer
  for ((round = 1; round <= rounds; round++)); do
    if ((round % 2)); then
      sb=$(run_sharebench "$sb_case"); peer=$(run_peer "$peer_case")
    else
      peer=$(run_peer "$peer_case"); sb=$(run_sharebench "$sb_case")
    fi
    rounds_out+="$sb/$peer;"
  done
  python3 - "$label" "$goal" "$rounds_out" <<'PY'
import statistics, sys
label, goal, text = sys.argv[1], float(sys.argv[2]), sys.argv[3]
pairs = [r.split("/") for r in text.split(";") if r]
sb = [statistics.median(map(float, s.split())) for s, _ in pairs]
peer = [statistics.median(map(float, p.split())) for _, p in pairs]
ratio = statistics.median(s / p for s, p in zip(sb, peer))
verdict = "meets" if ratio >= goal else "BELOW"
print(f"{label:<44} {statistics.median(sb)/1e6:>9.0f} {statistics.median(peer)/1e6:>11.0f} "
      f"{ratio:>7.3f}  {verdict} goal {goal:.2f}")
PY
}
