#!/usr/bin/env bash
# Installs the agents the tests run against — pi 0.73.1 (@mariozechner/pi-coding-agent),
# pi 1.6.0 (@earendil-works/pi-coding-agent), oh-my-pi 18.2.3 and, in the npm workspace
# tests/agents/omp13, oh-my-pi 13.19.0, with the Bun that runs the TypeScript ones — into
# tests/agents/node_modules with `npm ci` (exact versions from tests/agents/package-lock.json);
# then oh-my-pi 18.3.4 into tests/agents/omp183/node_modules (its own lock file, `omp183/setup.sh`).
# Idempotent: does nothing when they are installed and the lock files have not changed since.
# Prints the folder on stdout:  ORACLE=$(scripts/install-agents.sh)
#
# `npm ci`, never `npm install`: the lock file lists by hand the non-linux-x64
# @oh-my-pi/pi-natives-* optional packages, which `npm install` would drop (tests/agents/README.md).
# Needs Node 20, npm and the npm registry (about 1.5 GB, 1-2 minutes).
# ORACLE names another installed folder instead (then nothing is installed).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -n "${ORACLE:-}" ]; then
	echo "install-agents: ORACLE=$ORACLE (not installing tests/agents)" >&2
	(cd "$ORACLE" && pwd)
	exit 0
fi
dir="$root/tests/agents"
stamp="$dir/node_modules/.contextree-installed"
stamp183="$dir/omp183/node_modules/.contextree-installed"
lock_sum="$(sha256sum "$dir/package-lock.json" "$dir/package.json" "$dir/omp13/package.json" | sha256sum | cut -d' ' -f1)"
lock183_sum="$(sha256sum "$dir/omp183/package-lock.json" "$dir/omp183/package.json" "$dir/omp183/setup.sh" \
	"$dir/omp183/natives-shim/"* | sha256sum | cut -d' ' -f1)"

main_ok=0
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$lock_sum" ] && [ -x "$dir/node_modules/.bin/bun" ] \
	&& [ -d "$dir/omp13/node_modules/@oh-my-pi/pi-coding-agent" ]; then
	main_ok=1
fi
omp183_ok=0
if [ "$main_ok" = 1 ] && [ -f "$stamp183" ] && [ "$(cat "$stamp183")" = "$lock183_sum" ] \
	&& [ -f "$dir/omp183/node_modules/@oh-my-pi/pi-coding-agent/dist/cli.js" ]; then
	omp183_ok=1
fi
if [ "$omp183_ok" = 1 ]; then
	echo "install-agents: already installed in $dir" >&2
	echo "$dir"
	exit 0
fi

cd "$dir"
if [ "$main_ok" = 0 ]; then
	echo "install-agents: npm ci in $dir" >&2
	npm ci --no-audit --no-fund >&2
	echo "$lock_sum" > "$stamp"
fi
# omp 18.3.4 uses 18.2.3's natives from the tree above: installed after it, again when it changed.
echo "install-agents: npm ci in $dir/omp183" >&2
"$dir/omp183/setup.sh"
echo "$lock183_sum" > "$stamp183"
echo "$dir"
