"""Read operations the CLI renders: learnings (list, proposals, show, history), evidence
(episodes, one episode's events), grants, the audit trail, status, doctor, trust (who may
decide) and verify.

Each is a library function over a ``gitstore.context.Context`` that returns plain values with
``to_json``; a read reads only what its answer needs. The rules they apply live in
``gitstore.rules``; the queries only gather, judge through the rules, and explain.
"""

__all__ = ["audit", "doctor", "evidence", "grants", "learnings", "status", "trust", "verify"]
