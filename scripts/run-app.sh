#!/usr/bin/env bash
# Builds and runs the desktop app: `scripts/run-app.sh [SESSION.jsonl]`.
# Without SESSION the app opens the bundled demo session. Needs a display ($DISPLAY);
# on a headless machine: xvfb-run -a -s '-screen 0 1280x800x24' scripts/run-app.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

args=()
if (($#)); then
  # Resolve SESSION against the caller's directory before changing into the repository.
  args=("$(realpath -- "$1")")
  shift
fi

"$root/scripts/install-deps.sh"

if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
  echo "run-app: no display (\$DISPLAY and \$WAYLAND_DISPLAY are unset): the app needs one." >&2
  echo "run-app: on a headless machine run: xvfb-run -a -s '-screen 0 1280x800x24' $0 ${args[*]:-}" >&2
  exit 1
fi

cd "$root"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
# The same package selection as scripts/test.sh and CI, not `cargo run -p contextree-app`:
# the e2e crate's dev-dependencies change tokio's (and a few other crates') features, so
# another selection would rebuild them (minutes) each time one switches between the two.
cargo build --workspace --all-targets
target_dir="$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
exec "$target_dir/debug/contextree-app" "${args[@]}" "$@"
