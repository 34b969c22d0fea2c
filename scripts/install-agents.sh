#!/usr/bin/env bash
# Installs the agents the tests run against — pi 0.73.1 (@mariozechner/pi-coding-agent),
# pi 1.6.0 (@earendil-works/pi-coding-agent), oh-my-pi 18.2.3 and, in the npm workspace
# tests/agents/omp13, oh-my-pi 13.19.0, with the Bun that runs the TypeScript ones — into
# tests/agents/node_modules with `npm ci` (exact versions from tests/agents/package-lock.json).
# Idempotent: does nothing when they are installed and the lock file has not changed since.
# Prints the folder on stdout:  ORACLE=$(scripts/install-agents.sh)
#
# `npm ci`, never `npm install`: the lock file lists by hand the non-linux-x64
# @oh-my-pi/pi-natives-* optional packages, which `npm install` would drop (tests/agents/README.md).
# Needs Node 20, npm and the npm registry (about 1 GB, 1-2 minutes).
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
lock_sum="$(sha256sum "$dir/package-lock.json" "$dir/package.json" "$dir/omp13/package.json" | sha256sum | cut -d' ' -f1)"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$lock_sum" ] && [ -x "$dir/node_modules/.bin/bun" ] \
	&& [ -d "$dir/omp13/node_modules/@oh-my-pi/pi-coding-agent" ]; then
	echo "install-agents: already installed in $dir" >&2
	echo "$dir"
	exit 0
fi

cd "$dir"
echo "install-agents: npm ci in $dir" >&2
npm ci --no-audit --no-fund >&2
echo "$lock_sum" > "$stamp"
echo "$dir"
