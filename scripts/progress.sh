# Sourced by with-node24.sh, e2e/install.sh and dev.sh. A long step prints a
# line at least every 15 s (what it is doing, how far, time so far), and its
# duration is recorded for scripts/dev.ts's closing summary: appended to the file
# WORKPLACE_PHASES_FILE names ("name=seconds" lines, set by dev.sh), else to the
# exported WORKPLACE_PHASES ("name=seconds;...", which dev.sh puts in that file).

# "45 s", "3 min 05 s"
human_time() {
  local s=$1
  if [ "$s" -lt 60 ]; then echo "$s s"; else printf '%d min %02d s\n' $((s / 60)) $((s % 60)); fi
}

# run_phase NAME DETAIL_COMMAND COMMAND...: runs COMMAND; every PROGRESS_EVERY
# seconds (15) prints "[setup] NAME: <DETAIL_COMMAND's output>, <time> so far".
run_phase() {
  local name=$1 detail=$2
  shift 2
  local start
  start=$(date +%s)
  (
    while sleep "${PROGRESS_EVERY:-15}"; do
      d=""
      if [ -n "$detail" ]; then d="$(eval "$detail" 2>/dev/null || true)"; fi
      echo "[setup] $name${d:+: $d}, $(human_time $(($(date +%s) - start))) so far" >&2
    done
  ) &
  local ticker=$! status=0
  # Disowned, so the shell reports nothing about it; stopped with SIGKILL, as a
  # subshell killed just after it started could still run the EXIT trap it was
  # forked with (and remove what the script is building).
  disown "$ticker" 2>/dev/null || true
  "$@" || status=$?
  kill -9 "$ticker" 2>/dev/null || true
  local took=$(($(date +%s) - start))
  if [ -n "${WORKPLACE_PHASES_FILE:-}" ]; then
    echo "$name=$took" >> "$WORKPLACE_PHASES_FILE"
  else
    export WORKPLACE_PHASES="${WORKPLACE_PHASES:+$WORKPLACE_PHASES;}$name=$took"
  fi
  if [ "$status" -eq 0 ]; then echo "[setup] $name: done in $(human_time "$took")" >&2; fi
  return "$status"
}
