#!/usr/bin/env bash
# Builds the installable packages of contextree, a .deb and an .rpm, with the Tauri bundler
# (offline: the .rpm is written by the bundler itself, no rpmbuild): the release desktop app
# (contextree-app), the `contextree` command line, its man pages and bash, zsh and fish
# completions, the agents' /contextree command (agents/contextree), a desktop entry and the
# icons. Both recommend the fonts the UI's font lists name (tauri.conf.json,
# bundle.linux.*.recommends).
#   scripts/package.sh            # prints the .deb's path, then the .rpm's, one a line on stdout
#                                 # (the build log goes to stderr)
# Then: sudo apt install ./PATH.deb, or sudo dnf install ./PATH.rpm.
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

# The man pages and completions, from the command line's own clap definition (its hidden
# `generate-assets`); written afresh so a removed command leaves no page behind. Man pages are
# installed gzipped, as Debian's policy asks (-n: no name or time inside, the same bytes each run).
assets="$target_dir/release/package-assets"
rm -rf "$assets"
"$target_dir/release/contextree" generate-assets "$assets" >/dev/null
gzip -9n "$assets"/man1/*.1

# What goes into the packages beside the app (bundle.linux.{deb,rpm}.files, destination:
# source); the sources are under the target folder, so they are given here rather than in
# tauri.conf.json. zsh looks in a different folder on each family: Debian's zsh reads
# vendor-completions, Fedora's and openSUSE's site-functions.
files="\"/usr/bin/contextree\":\"$target_dir/release/contextree\""
for page in "$assets"/man1/*.1.gz; do
	files+=",\"/usr/share/man/man1/${page##*/}\":\"$page\""
done
# The agents' /contextree (agents/contextree: one folder for `pi install` and `omp plugin
# install`), every file of the folder as it is in the repository.
for src in "$root"/agents/contextree/*; do
	files+=",\"/usr/share/contextree/agents/contextree/${src##*/}\":\"$src\""
done
files+=",\"/usr/share/bash-completion/completions/contextree\":\"$assets/bash/contextree\""
files+=",\"/usr/share/fish/vendor_completions.d/contextree.fish\":\"$assets/fish/contextree.fish\""
deb_files="$files,\"/usr/share/zsh/vendor-completions/_contextree\":\"$assets/zsh/_contextree\""
rpm_files="$files,\"/usr/share/zsh/site-functions/_contextree\":\"$assets/zsh/_contextree\""
config="{\"bundle\":{\"linux\":{\"deb\":{\"files\":{$deb_files}},\"rpm\":{\"files\":{$rpm_files}}}}}"
echo "package: tauri build --bundles deb,rpm" >&2
(cd "$root/src-tauri" && "$pack/node_modules/.bin/tauri" build --ci --bundles deb,rpm --config "$config" >&2)

newest() { ls -t "$@" 2>/dev/null | head -1 || true; }
deb="$(newest "$target_dir"/release/bundle/deb/contextree_"$version"_*.deb)"
rpm="$(newest "$target_dir"/release/bundle/rpm/contextree*"$version"*.rpm)"
[ -f "$deb" ] || { echo "package: no .deb in $target_dir/release/bundle/deb" >&2; exit 1; }
[ -f "$rpm" ] || { echo "package: no .rpm in $target_dir/release/bundle/rpm" >&2; exit 1; }
echo "package: $deb ($(du -h "$deb" | cut -f1))" >&2
echo "package: $rpm ($(du -h "$rpm" | cut -f1))" >&2
echo "$deb"
echo "$rpm"
