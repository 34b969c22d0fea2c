#!/usr/bin/env bash
# Installs oh-my-pi 18.3.4 for the tests into omp183/node_modules, exactly as package-lock.json
# says (`npm ci`; called by scripts/install-agents.sh after the folder above is installed).
#
# 18.3.4's own core packages (pi-agent-core, pi-ai, pi-tui, pi-utils, pi-natives … 18.3.x) are not
# on the registry, so a plain install fails. package.json overrides them: the newest published
# (18.2.11; pi-tui and pi-utils 18.2.9), and @oh-my-pi/pi-natives = natives-shim/, which
# re-exports 18.2.3's natives and linux-x64 addon from ../node_modules with stand-ins for the nine
# exports 18.3 added. That gives two ways to run 18.3.4:
#   - its TypeScript sources on those packages (oracle.mjs --impl omp183, with provide-modules.mjs);
#   - its dist/cli.js, a Bun bundle holding all of 18.3.4 (core included), as the whole agent
#     (wire.mjs): it needs only the natives and @babel/parser from here.
# Scripts are not run and optional dependencies (local TTS/embedding models) not installed:
# nothing is fetched from outside the npm registry.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
agents="$(dirname "$here")"
if [ ! -x "$agents/node_modules/.bin/bun" ] || [ ! -d "$agents/node_modules/@oh-my-pi/pi-natives-linux-x64" ]; then
	echo "omp183/setup.sh: install $agents first (npm ci there: Bun and oh-my-pi 18.2.3's natives)" >&2
	exit 2
fi
cd "$here"
npm ci --ignore-scripts --omit=optional --no-audit --no-fund >&2
# The bundle must start and say its version (it loads the natives on the way).
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
version="$(HOME="$home" "$agents/node_modules/.bin/bun" node_modules/@oh-my-pi/pi-coding-agent/dist/cli.js --version)"
if [ "$version" != "omp/18.3.4" ]; then
	echo "omp183/setup.sh: dist/cli.js --version printed '$version', expected omp/18.3.4" >&2
	exit 1
fi
echo "omp183/setup.sh: $version ready in $here/node_modules" >&2
