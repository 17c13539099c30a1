"""The renderers, one per route: each turns a verified learning into the exact bytes it writes.

``direct_edit`` (route 1) inserts a promoted block into the owning page; ``skill`` writes a
``SKILL.md``; ``overlay`` (route 0) writes a page of the local tooling overlay; ``staged``
(route 2) writes the brief a producer run reads. Renderers are pure: they read a commit and
return text; where it goes is decided by the promotion operation.
"""

__all__ = ["direct_edit", "overlay", "skill", "staged"]  # the public modules (tests/test_public_api.py keeps the list whole)
