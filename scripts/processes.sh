# Sourced by e2e.sh (own_tmpdir, at the end, uses the first).
# stop_descendants [GRACE_SECONDS]: SIGTERM to every process
# below this shell (what it started in the background or the foreground, and
# theirs), then SIGKILL to those still running GRACE_SECONDS (10) later.
# Each is stopped (SIGSTOP) as it is found, so that none starts another after
# its children were read, and gets SIGCONT once all have their SIGTERM.
# SIGTERM first: a script among them still runs its EXIT trap (e2e/install.sh
# removes its sqlite3 build folder). SIGKILL after: n8n's import commands, for
# one, carry on after a SIGTERM.
stop_descendants() {
  # A subshell killed just after it started can still run the EXIT trap it was
  # forked with; only the shell itself stops what is below it.
  [ "$BASHPID" = "$$" ] || return 0
  local grace=${1:-10} tree=("$$") n=0 child left tenths=0
  # The tree grows as it is read: each process's children are appended after it.
  while [ "$n" -lt ${#tree[@]} ]; do
    for child in $(ps -o pid= --ppid "${tree[$n]}" 2>/dev/null); do
      # Gone already (the listing's own subshell and ps among them): skipped.
      if kill -STOP "$child" 2>/dev/null; then tree+=("$child"); fi
    done
    n=$((n + 1))
  done
  local found=("${tree[@]:1}")
  [ ${#found[@]} -gt 0 ] || return 0
  kill -TERM "${found[@]}" 2>/dev/null || true
  kill -CONT "${found[@]}" 2>/dev/null || true
  # Still running: listed by ps and not a zombie (dead, not yet reaped).
  while left=$(ps -o pid=,stat= -p "$(IFS=,; echo "${found[*]}")" 2>/dev/null | awk '$2 !~ /^Z/ { print $1 }'); [ -n "$left" ]; do
    if [ "$tenths" -ge $((grace * 10)) ]; then
      kill -KILL $left 2>/dev/null || true
      return 0
    fi
    sleep 0.1
    tenths=$((tenths + 1))
  done
}

# own_tmpdir PREFIX [GRACE_SECONDS]: a temporary folder of this shell's own
# (PREFIX.XXXXXX in TMPDIR, /tmp by default; others may read it, as
# PostgreSQL's own user must when the suites are run by root) becomes TMPDIR
# for everything the shell starts, and an EXIT trap, however the shell ends,
# stops what it started (stop_descendants) and then removes that folder: a
# process cut short before its own clean-up leaves no temporary folder behind.
own_tmpdir() {
  own_tmp="$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")"
  chmod 755 "$own_tmp"
  export TMPDIR="$own_tmp"
  own_tmp_grace=${2:-10}
  trap end_own_tmpdir EXIT
}
end_own_tmpdir() {
  [ "$BASHPID" = "$$" ] || return 0
  stop_descendants "$own_tmp_grace"
  rm -rf "$own_tmp"
}
