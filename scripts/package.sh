#!/usr/bin/env bash
# Builds the installable Debian package of contextree: the release desktop app (contextree-app),
# the `contextree` command line, a desktop entry and the icons, with the Tauri bundler.
#   scripts/package.sh            # prints the .deb's path on stdout (the build log goes to stderr)
# Then: sudo dpkg -i PATH.deb (sudo apt-get install -f if dependencies are missing).
#
# The bundler is the npm package @tauri-apps/cli at the exact version of packaging/package.json
# (its lock file pins the prebuilt binary's package), installed with `npm ci` into
# packaging/node_modules: seconds, where `cargo install tauri-cli` compiles for ~20 minutes.
# Needs the packages of scripts/install-deps.sh (run first), Node 20 and npm. Idempotent: npm ci
# runs only when the lock file changed; cargo rebuilds only what changed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

pack="$root/packaging"
stamp="$pack/node_modules/.contextree-installed"
lock_sum="$(sha256sum "$pack/package.json" "$pack/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [ ! -x "$pack/node_modules/.bin/tauri" ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
	echo "package: npm ci in packaging/ (@tauri-apps/cli)" >&2
	(cd "$pack" && npm ci --no-audit --no-fund >&2)
	echo "$lock_sum" > "$stamp"
fi

target_dir="$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
version="$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"name":"contextree-app","version":"\([^"]*\)".*/\1/p')"
echo "package: cargo build --release -p contextree-cli" >&2
cargo build --release --locked -p contextree-cli >&2

# The command line goes into the package beside the app (bundle.linux.deb.files); its path
# depends on the target folder, so it is given here rather than in tauri.conf.json.
config="$(printf '{"bundle":{"linux":{"deb":{"files":{"/usr/bin/contextree":"%s"}}}}}' "$target_dir/release/contextree")"
echo "package: tauri build --bundles deb" >&2
(cd "$root/src-tauri" && "$pack/node_modules/.bin/tauri" build --ci --bundles deb --config "$config" >&2)

deb="$(ls -t "$target_dir"/release/bundle/deb/contextree_"$version"_*.deb | head -1)"
[ -f "$deb" ] || { echo "package: no .deb in $target_dir/release/bundle/deb" >&2; exit 1; }
echo "package: $deb ($(du -h "$deb" | cut -f1))" >&2
echo "$deb"
