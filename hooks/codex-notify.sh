#!/bin/sh
# Codex notify adapter: `notify = ["/path/to/hooks/codex-notify.sh"]` in ~/.codex/config.toml;
# Codex appends the turn's JSON as the last argument. `gitstore hooks install --harness
# codex-notify` sets `notify` to `<python> -m gitstore.capture.agent_hook codex` itself; this script is the same
# adapter for wiring by hand. GITSTORE_PYTHON names the Python that has gitstore installed
# (default: python3). It prints nothing and always exits 0.
"${GITSTORE_PYTHON:-python3}" -P -m gitstore.capture.agent_hook codex "$@" >/dev/null 2>&1
exit 0
