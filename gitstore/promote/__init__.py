"""Promotion: from an accepted learning to a reviewable commit, and the gates that review it.

- ``verify``: the checks a learning passes before it may be promoted (a different authority
  than the consolidator that proposed it); ``audience``: environment traces in a claim;
- ``routing``: the wiki page and section that own a learning; ``rubric``: the route;
- ``packet``: the PromotionPacket, built from the checks and the route's rendering;
- ``routes``: one renderer per route; ``blocks``: the promoted block and its citations;
- ``branch``: the commit on ``memory/promote/<id>`` and its trailers; ``pr``: push and pull request;
- ``okf``: the OKF page checks; ``pages``: the rules one wiki page breaks by itself, which the
  wiki gate and promote both run; ``findings``: a problem on a line of a file, as they report it;
- ``skills``: the Agent Skills rules; ``snapshot``: a commit's files;
- ``gates``: the pre-commit gates (entry points in the top-level ``validators/``);
- ``provenance``: each promotion commit of a range with the promotion gate's verdict;
- ``standing``: how a promoted block stands against the store, and the blocks of a work tree
  whose learnings left force.

The operation that writes (stores the packet, lands the route) is ``gitstore.ops.promote``.
"""

__all__ = ["audience", "blocks", "branch", "findings", "gates", "okf", "packet", "pages", "pr", "provenance", "routes",
           "routing", "rubric", "skills", "snapshot", "standing",
           "verify"]  # the public modules (tests/test_public_api.py keeps the list whole)
