# Shared by the bench scripts: alternating rounds of sharebench and its peer, and the ratio of
# the medians. A script defines run_sharebench CASE and run_peer CASE (each prints the bytes/s of
# its timed passes, space-separated) and sets `rounds`, then calls measure_case.

median() { python3 -c 'import statistics,sys; print(statistics.median(map(float, sys.argv[1:])))' "$@"; }

# measure_case LABEL SHAREBENCH-CASE PEER-CASE GOAL: the order swaps each round, so neither tool
# always runs on a machine the other has just warmed or loaded.
measure_case() {
  local label=$1 sb_case=$2 peer_case=$3 goal=$4 sb=() peer=() round
  for ((round = 1; round <= rounds; round++)); do
    if ((round % 2)); then
      sb+=($(run_sharebench "$sb_case")); peer+=($(run_peer "$peer_case"))
    else
      peer+=($(run_peer "$peer_case")); sb+=($(run_sharebench "$sb_case"))
    fi
  done
  python3 - "$label" "$goal" "$(median "${sb[@]}")" "$(median "${peer[@]}")" <<'PY'
import sys
label, goal, sb, peer = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
ratio = sb / peer
verdict = "meets" if ratio >= goal else "BELOW"
print(f"{label:<44} {sb/1e6:>9.0f} {peer/1e6:>11.0f} {ratio:>7.3f}  {verdict} goal {goal:.2f}")
PY
}
