#!/usr/bin/env bash
# Installs the reference oracle (pi 0.73.1 / oh-my-pi 13.19.0 as libraries) next to the
# repository: copies ../shared/oracle to ../oracle (both relative to the repository root) when
# ../oracle or its node_modules is missing, then runs `npm ci` there. Idempotent: an existing
# installation with node_modules is left as it is. Prints the oracle directory on stdout.
#
#   scripts/install-oracle.sh            # then: ORACLE=$(scripts/install-oracle.sh)
#
# Overrides: SHARED (default ROOT/../shared), ORACLE (default ROOT/../oracle).
# Needs Node 20, npm and access to the npm registry (about 1 GB, 1-2 minutes).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SHARED_DIR="${SHARED:-$ROOT/../shared}"
ORACLE_DIR="${ORACLE:-$ROOT/../oracle}"

if [ -f "$ORACLE_DIR/oracle.mjs" ] && [ -d "$ORACLE_DIR/node_modules" ] \
	&& [ -x "$ORACLE_DIR/node_modules/.bin/bun" ] && [ -d "$ORACLE_DIR/omp13/node_modules" ]; then
	echo "install-oracle: already installed" >&2
	(cd "$ORACLE_DIR" && pwd)
	exit 0
fi

if [ ! -f "$SHARED_DIR/oracle/oracle.mjs" ]; then
	echo "install-oracle: $SHARED_DIR/oracle/oracle.mjs not found (set SHARED)" >&2
	exit 2
fi

if [ ! -f "$ORACLE_DIR/oracle.mjs" ]; then
	mkdir -p "$ORACLE_DIR"
	echo "install-oracle: copying $SHARED_DIR/oracle to $ORACLE_DIR" >&2
	cp -r "$SHARED_DIR/oracle/." "$ORACLE_DIR/"
	chmod -R u+w "$ORACLE_DIR"
fi

cd "$ORACLE_DIR"
echo "install-oracle: npm ci in $(pwd)" >&2
npm ci >&2
pwd
