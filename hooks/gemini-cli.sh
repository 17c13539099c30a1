#!/bin/sh
# Gemini CLI capture adapter (SessionEnd, PreCompress): the hook's JSON arrives on standard input.
# `gitstore hooks install --harness gemini-cli` wires `<python> -m gitstore.capture.agent_hook gemini-cli` into the harness
# itself; this script is the same adapter for wiring by hand. GITSTORE_PYTHON names the Python
# that has gitstore installed (default: python3). It prints nothing and always exits 0.
"${GITSTORE_PYTHON:-python3}" -P -m gitstore.capture.agent_hook gemini-cli "$@" >/dev/null 2>&1
exit 0
