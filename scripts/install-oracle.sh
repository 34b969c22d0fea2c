#!/usr/bin/env bash
# Former name of scripts/install-agents.sh (the agents now live in tests/agents).
exec "$(dirname "${BASH_SOURCE[0]}")/install-agents.sh" "$@"
