#!/usr/bin/env bash
# Every test of the project, in order; stops at the first failing step.
# Steps are functions listed in STEPS: to add one, write `step_name() { ...; }` and list it.
# TEST_STEPS="a b" runs only the steps named.
# Needs the packages of scripts/install-deps.sh (.ci/run installs them first).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

# One package selection (--workspace) everywhere: a build and a test of different selections
# resolve features differently and rebuild ~90 crates.
# System packages and tauri-driver (idempotent: installs only what is missing).
step_deps() {
  scripts/install-deps.sh
}

# The real agents' npm packages in tests/agents (npm ci, pinned by its lock file): the parity
# tests read the agents' own prompt texts from them, and the write tests load written files in
# the agents.
step_agents() {
  scripts/install-agents.sh >/dev/null
}

step_build() {
  cargo build --workspace --all-targets --locked
}

# One formatting (rustfmt.toml): a file rustfmt would change fails the run.
step_fmt() {
  cargo fmt --all --check
}

# Lints as errors: a warning fails the run (issue "a house others can carry on").
step_clippy() {
  cargo clippy --workspace --all-targets --locked -- -D warnings
}

step_cargo_test() {
  # The e2e binary prints "skipped" here (no CONTEXTREE_E2E); step_e2e runs it for real.
  cargo test --workspace --locked
}

# The UI's pure modules, and agents/contextree's command lines and messages without an agent
# (cargo_test's agent_command loads it in the real agents).
step_ui_test() {
  node --test tests/ui/ tests/agent-command/
}

# scripts/agent-drift.sh offline (issue 20): two fixture package trees, a changed module
# flagged, minifier-renamed names not (about a second, no network).
step_drift() {
  node --test tests/drift/
}

# The UI's type check (issue 19): tsc over ui/src's JSDoc-typed modules against the declarations
# generated from the read layer's reports (ui/src/generated/, kept current by contextree-read's
# `the_ui_contract_is_current` test). TypeScript is pinned in tests/ui/package.json's lock file.
step_ui_types() {
  (cd tests/ui && npm ci --no-audit --no-fund --loglevel=error && npx --no-install tsc -p tsconfig.json)
  echo "ui types: ui/src checks against ui/src/generated/reports.d.ts"
}

# tauri-driver listens on fixed ports: one e2e run at a time on a machine (the lock file is
# the one scripts/bench-app.sh takes too).
# A case stuck on a WebDriver call that never answers (a screenshot waiting for a paint, stop
# 31) must fail the step, not hold CI to its deadline: 15 minutes for a run of about 2.
step_e2e() {
  CONTEXTREE_E2E=1 flock /tmp/e2e.lock timeout -k 30 900 xvfb-run -a -s '-screen 0 1280x800x24' \
    cargo test --workspace --locked --test e2e
}

# The installable packages: build the .deb and the .rpm (scripts/package.sh); install the .deb,
# check its files (the man pages as man finds them, the completions; bash loads its own), its
# recommended fonts, run the installed command line on the demo session and start the installed
# app under Xvfb once: alive after a few seconds, and its page asked for the demo session (the
# app writes it into its cache folder then), so the web view loaded and talked to the backend.
# The .rpm is inspected, not installed (this is Debian): its files, modes and recommended fonts.
step_package() {
  local built deb rpm sudo=() scratch log pid status=0
  built="$(scripts/package.sh)"
  deb="$(grep '\.deb$' <<<"$built")"
  rpm="$(grep '\.rpm$' <<<"$built")"
  if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
  if ! "${sudo[@]}" dpkg -i "$deb"; then
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -f -y --no-install-recommends
  fi
  # Each output is read whole before grep looks at it: `cmd | grep -q` fails under pipefail
  # when grep stops reading early.
  local files want text
  local common=('^/usr/bin/contextree$' '^/usr/bin/contextree-app$' '^/usr/share/applications/.*\.desktop$'
    '^/usr/share/icons/.*\.png$' '^/usr/share/man/man1/contextree\.1\.gz$' '^/usr/share/man/man1/contextree-context\.1\.gz$'
    '^/usr/share/bash-completion/completions/contextree$' '^/usr/share/fish/vendor_completions\.d/contextree\.fish$'
    '^/usr/share/contextree/agents/contextree/package\.json$' '^/usr/share/contextree/agents/contextree/index\.js$'
    '^/usr/share/contextree/agents/contextree/launch\.js$')
  files="$(dpkg -L contextree)"
  for want in "${common[@]}" '^/usr/share/zsh/vendor-completions/_contextree$'; do
    grep -q "$want" <<<"$files" || { echo "package: nothing installed matches $want" >&2; return 1; }
  done
  text="$(dpkg-query -W -f='${Recommends}' contextree)"
  for want in fonts-dejavu-core fonts-noto-cjk fonts-noto-color-emoji; do
    grep -qw "$want" <<<"$text" || { echo "package: the .deb does not recommend $want ($text)" >&2; return 1; }
  done
  # man finds the pages by name, and they document the commands (C locale: plain hyphens).
  text="$(man -w contextree)"
  [[ "$text" == /usr/share/man/man1/contextree.1.gz ]] || { echo "package: man -w contextree: $text" >&2; return 1; }
  text="$(LC_ALL=C MANWIDTH=100 man -P cat contextree)"
  grep -q 'contextree-context(1)' <<<"$text" || { echo "package: man contextree lists no contextree-context(1)" >&2; return 1; }
  text="$(LC_ALL=C MANWIDTH=100 man -P cat contextree-context)"
  grep -q -- '--leaf' <<<"$text" || { echo "package: man contextree-context does not document --leaf" >&2; return 1; }
  bash -c 'source /usr/share/bash-completion/completions/contextree && complete -p contextree' >/dev/null \
    || { echo "package: the bash completion does not register for contextree" >&2; return 1; }
  echo "installed package: files, recommended fonts, man pages and the bash completion checked"

  files="$(rpm -qlvp "$rpm")"
  for want in "${common[@]}" '^/usr/share/zsh/site-functions/_contextree$'; do
    grep -q " ${want#^}" <<<"$files" || { echo "package: nothing in the .rpm matches $want" >&2; return 1; }
  done
  # Modes as rpm will install them: both programs executable.
  for want in /usr/bin/contextree /usr/bin/contextree-app; do
    grep -qE "^-rwxr-xr-x .* $want\$" <<<"$files" || { echo "package: $want is not executable in the .rpm" >&2; return 1; }
  done
  text="$(rpm -qp --recommends "$rpm")"
  for want in dejavu-sans-fonts dejavu-sans-mono-fonts google-noto-sans-cjk-fonts google-noto-color-emoji-fonts; do
    grep -qx "$want" <<<"$text" || { echo "package: the .rpm does not recommend $want ($text)" >&2; return 1; }
  done
  echo "rpm package: $(grep -c . <<<"$files") files; programs, man pages, completions and recommended fonts checked"

  cat /usr/share/applications/contextree*.desktop
  /usr/bin/contextree info demo/demo-session.jsonl
  scratch="$(mktemp -d)"
  log="$scratch/app.log"
  XDG_CACHE_HOME="$scratch/cache" XDG_CONFIG_HOME="$scratch/config" \
    xvfb-run -a -s '-screen 0 1280x800x24' bash -c '
      /usr/bin/contextree-app >"$1" 2>&1 &
      pid=$!
      for _ in $(seq 40); do
        [ -s "$XDG_CACHE_HOME/dev.contextree.app/demo-session.jsonl" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.5
      done
      sleep 3
      if ! kill -0 "$pid" 2>/dev/null; then echo "installed app: exited early" >&2; exit 1; fi
      kill "$pid"; wait "$pid" 2>/dev/null || true
      [ -s "$XDG_CACHE_HOME/dev.contextree.app/demo-session.jsonl" ] \
        || { echo "installed app: the page never opened the demo session" >&2; exit 1; }
      echo "installed app: ran, opened the demo session, stopped"
    ' app-check "$log" || status=$?
  if ((status)); then cat "$log" >&2; fi
  rm -rf "$scratch"
  return "$status"
}

STEPS=(deps agents fmt build clippy cargo_test ui_test drift ui_types e2e package)
# TEST_STEPS="e2e package" scripts/test.sh runs only those steps (a step needs the ones before it
# to have run once).
if [[ -n "${TEST_STEPS:-}" ]]; then read -ra STEPS <<<"$TEST_STEPS"; fi

for step in "${STEPS[@]}"; do
  echo
  echo "=== test.sh: $step ==="
  start=$SECONDS
  "step_$step"
  echo "=== test.sh: $step ok ($((SECONDS - start)) s) ==="
done
echo
echo "=== test.sh: all steps passed ==="
