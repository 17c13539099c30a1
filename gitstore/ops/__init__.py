"""Operations that change memory: each validates against the rules, then writes its records and
the audit entries that record it in one atomic append. The CLI calls these and renders. ``wiki``
sets up the work-tree wiki promotion edits, and ``policy`` and ``scope`` write the team's files in
``.gitstore/`` (no records: the person commits what they write)."""


__all__ = ["consent", "export", "gc", "labels", "learning", "policy", "promote", "purge", "redact", "scope", "setup",
           "snapshots", "unfinished", "wiki"]  # the public modules (tests/test_public_api.py keeps the list whole)
