#!/usr/bin/env bash
# Every test of the project, in order; stops at the first failing step.
# Steps are functions listed in STEPS: to add one, write `step_name() { ...; }` and list it.
# Needs the packages of scripts/install-deps.sh (.ci/run installs them first).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

# One package selection (--workspace) everywhere: a build and a test of different selections
# resolve features differently and rebuild ~90 crates (tauri-on-linux.md).
# System packages and tauri-driver (idempotent: installs only what is missing).
step_deps() {
  scripts/install-deps.sh
}

# The real agents' npm packages next to the repository: the parity tests read the agents'
# own prompt texts from them, and the compaction test loads written files in the agents.
step_oracle() {
  scripts/install-oracle.sh
}

step_build() {
  cargo build --workspace --all-targets --locked
}

# Lints as errors: a warning fails the run (issue "a house others can carry on").
step_clippy() {
  cargo clippy --workspace --all-targets --locked -- -D warnings
}

step_cargo_test() {
  # The e2e binary prints "skipped" here (no CONTEXTREE_E2E); step_e2e runs it for real.
  cargo test --workspace --locked
}

step_ui_test() {
  node --test tests/ui/
}

step_e2e() {
  CONTEXTREE_E2E=1 xvfb-run -a -s '-screen 0 1280x800x24' \
    cargo test --workspace --locked --test e2e
}

STEPS=(deps oracle build clippy cargo_test ui_test e2e)

for step in "${STEPS[@]}"; do
  echo
  echo "=== test.sh: $step ==="
  start=$SECONDS
  "step_$step"
  echo "=== test.sh: $step ok ($((SECONDS - start)) s) ==="
done
echo
echo "=== test.sh: all steps passed ==="
