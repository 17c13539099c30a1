#!/bin/sh
# Claude Code capture adapter (SessionEnd, PreCompact): the hook's JSON arrives on standard input.
# `gitstore hooks install --harness claude-code` wires `<python> -m gitstore.capture.agent_hook claude-code` into the harness
# itself; this script is the same adapter for wiring by hand. GITSTORE_PYTHON names the Python
# that has gitstore installed (default: python3). It prints nothing and always exits 0.
"${GITSTORE_PYTHON:-python3}" -P -m gitstore.capture.agent_hook claude-code "$@" >/dev/null 2>&1
exit 0
