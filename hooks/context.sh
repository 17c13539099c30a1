#!/bin/sh
# Context adapter for any harness: `context.sh claude-code|codex|gemini-cli|opencode`, the hook's
# JSON on standard input. It prints exactly the answer the harness reads (accepted learnings
# relevant to the prompt, bounded, with provenance) or nothing, and always exits 0.
# `gitstore hooks install --harness NAME` wires `<python> -m gitstore.deliver.hook NAME` into the
# harness itself; this script is the same adapter for wiring by hand. GITSTORE_PYTHON names the
# Python that has gitstore installed (default: python3).
"${GITSTORE_PYTHON:-python3}" -P -m gitstore.deliver.hook "$@" 2>/dev/null
exit 0
