"""``gitstore-records``: verify the memory refs before they are pushed.

Runs the store's ``verify`` over every record and ref under ``refs/memory/v1/``: layout, order,
canonical bytes, contracts, digests, decisions written without their audit entry, shared
learnings citing personal sessions, and local refs where a push would send them. Each problem is
one line; a clone without memory passes. Records that are intact and only carry no authority (a
decision made before the team's policy, unsigned) are ``verify``'s notices, not problems: they
never block a push, which nothing but making them again, signed, could otherwise unblock.
"""

from __future__ import annotations

from collections.abc import Sequence

from gitstore.promote.gates._common import Finding, parser, read_store, report, run, top_level

PROG = "gitstore-records"
WHERE = "refs/memory/v1"


def check() -> list[Finding]:
    """The problems ``verify`` finds in this repository's memory refs."""
    from gitstore.queries.verify import verify

    result = verify(read_store(top_level()))
    return [Finding(WHERE, 1, str(problem)) for problem in result.problems]  # a pushed name, shown


def main(argv: Sequence[str] | None = None) -> int:
    parser(PROG, __doc__.splitlines()[0]).parse_args(argv)
    return run(PROG, lambda: report(check()))
