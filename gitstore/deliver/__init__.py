"""Delivery: accepted learnings reach agents, bounded, attributed and never re-sent.

- ``terms``, ``index``, ``recall``: Unicode-aware lexical recall over learnings in force, from a
  disposable SQLite FTS5 index (``build`` makes it from the store, ``heads`` says when it is
  current, ``carry`` keeps it current across a capture that cannot change it), within hard
  ceilings (``limits``);
- ``surfaces``, ``context``, ``hook``: the context hook each harness runs, its answer framed as
  reference material with provenance; ``place`` decides where delivery may run at all;
- ``ledger``: which learnings each agent session was given, so none is sent twice;
- ``publish``: the managed section of AGENTS.md (and CLAUDE.md, Copilot's instructions) and the
  continual-learning index, with rollback; ``refresh``: what left force taken out of those
  files, nothing added;
- ``mcp``: an optional read-only MCP server; ``stdio``: its transport, each message bounded.

Importing this package loads nothing: the agent hook imports only the light modules it needs.
"""

__all__ = [
    "build", "carry", "clindex", "context", "db", "heads", "here", "hook", "index", "jsonlite", "ledger", "limits", "mcp",
    "place", "publish", "recall", "receipts", "refresh", "sections", "snapshots", "stdio", "surfaces", "terms",
]  # the public modules (tests/test_public_api.py keeps the list whole)
