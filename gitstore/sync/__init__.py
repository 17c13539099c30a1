"""Memory travelling with the repository, and the loop that runs without anyone starting it.

- ``settings``: the ``loop`` section of ``okf/.memory/config.json``, read strictly;
- ``steps``: the steps a tick may run (reviews, github, dream, publish, sync), one function each,
  registered by name; a step whose stage is not installed is reported as unavailable;
- ``tick``: one pass of the loop under a lock, each due step bounded in time in a child
  process, the last results kept in ``okf/.memory/loop/``;
- ``remote``: ``gitstore sync``, fetching every writer's shared refs, admitting what
  ``arrivals`` verifies, quarantining the rest, pushing this writer's own;
- ``ci``: the GitHub Actions workflows ``gitstore ci init`` writes; ``hooks``: the gates as a
  CI's local pre-commit hooks.
"""

__all__ = ["arrivals", "ci", "hooks", "remote", "settings", "steps", "tick"]  # the public modules (tests/test_public_api.py keeps the list whole)
