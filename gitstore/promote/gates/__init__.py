"""The pre-commit gates, each a ``main(argv) -> int`` printing one finding per line as
``path:line: message`` and exiting 1 when it found any:

- ``records``   (``gitstore-records``): verify the memory refs (pre-push);
- ``promotion`` (``gitstore-promotion``): a commit with ``Gitstore-*`` trailers is exactly what
  promote plans and writes for an accepted, active learning, and no other commit adds a promoted
  block (fenced code included), a promoted block's marker outside ``okf/wiki/`` and
  ``.agents/skills/``, or a line of what ``gitstore publish`` writes or imitating it in a file
  agents read (commit-msg, pre-push, and CI over a pull request's commits);
- ``wiki``      (``gitstore-okf``): the OKF wiki rules and gitstore's rules for promoted claims,
  the tooling overlay and the pages no one edits by hand;
- ``skills``    (``gitstore-skills``): the Agent Skills rules on ``SKILL.md`` files;
- ``scan``      (``gitstore-scan``): the safety scanner on staged text files and every file agents
  read, whatever its bytes, honouring ``.gitstore-allow``.

The top-level ``validators/`` folder of the repository holds the thin entry points the
``.pre-commit-hooks.yaml`` names; they are installed as ``gitstore_validators``.
"""

__all__ = ["promotion", "records", "scan", "skills", "wiki"]  # the public modules (tests/test_public_api.py keeps the list whole)
