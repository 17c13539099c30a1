"""Route 2: a staged brief for a producer run. It edits no canon.

Broad or structural knowledge (a new page, several pages, a replacement) is written by the
wiki's producer in a staged run, behind its citation gate. Promotion writes what that run
needs under the git-ignored ``okf/.memory/staged/<learning-id>/``: ``packet.json`` (the packet
record) and ``brief.md`` (the statement, its evidence, its citations and the constraints the
producer keeps), and stops.
"""

from __future__ import annotations

import json
from typing import Any

from gitstore.promote import blocks

FOLDER = "staged"


def render_brief(packet: dict[str, Any], learning: dict[str, Any], name: str, evidence: list[str],
                 candidates: list[tuple[str, int]]) -> str:
    """The brief a producer run reads, headed by ``name`` (``gitstore.records.headline.title_for``)."""
    cited = "\n".join(f"- {c['kind']}: {blocks.render_citation(blocks.Citation(c['kind'], c['ref']))}"
                      for c in packet["citations"])
    pages = "\n".join(f"- {page} (routing score {score})" for page, score in candidates[:5]) or "- none"
    reasons = "\n".join(f"- {reason}" for reason in packet["rubric"]["reasons"])
    return f"""# Staged update: {name}

Learning {learning['id']} (contentDigest {learning['contentDigest']}), accepted by
{blocks.shown_name('decision.by', learning['decision']['by'])}; packet {packet['digest']}.

## Statement

{packet['statement']}

## Why a staged update

{reasons}

## Evidence

{chr(10).join(f'- {line}' for line in evidence)}

## Citations

{cited}

## Pages that may own it

{pages}

## Constraints for the producer run

- Every claim this run adds cites its source (path@commit, a test and its result, or the learning).
- `INSTRUCTIONS.md` is preserved byte for byte; `index.md` and `log.md` are written only by the run
  itself and never by hand; no run provenance is invented.
- Pages not concerned by the statement stay byte-identical.
"""


def packet_json(packet: dict[str, Any]) -> str:
    """The packet record as a file."""
    return json.dumps(packet, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
