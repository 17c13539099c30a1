"""A provider changed in config.json never leaves the records the one before it holds unnamed.

``init --accept-changes`` takes a new provider as a person's choice, but the records are where
the old one keeps them (``refs/memory/v1/``, ``store.sqlite``, the jsonl folder), and the new
one reads none of them: learnings would list nothing, verify say 0 records ok and publish drop
their learnings from AGENTS.md. Init says how many are left and how to read them again, and
doctor keeps naming them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from . import cli
from .advice import checks

CONFIG = Path("okf") / ".memory" / "config.json"


def _switch(repo: Path, old: str, new: str) -> str:
    cli.ok("init", "--provider", old, cwd=repo)
    for note in ("first", "second"):
        cli.ok("grant", "--purpose", "review", "--source", "review-thread", "--note", note, cwd=repo)
    config = json.loads((repo / CONFIG).read_text())
    (repo / CONFIG).write_text(json.dumps({**config, "provider": new}))
    return cli.ok("init", "--accept-changes", cwd=repo)


@pytest.mark.parametrize(("old", "new"), [("git", "sqlite"), ("sqlite", "jsonl"), ("jsonl", "git")])
def test_init_and_doctor_name_the_records_the_provider_before_holds(repo: Path, old: str, new: str) -> None:
    said = _switch(repo, old, new)
    left = re.search(rf"left +(\d+) record\(s\) of this clone are in the {old} provider's store \(([^)]*)\), "
                     rf"which the {new} provider does not read", said)
    assert left is not None and int(left.group(1)) >= 2, said
    assert f'set "provider" back to "{old}"' in said, said
    assert "2 of" not in cli.ok("grants", cwd=repo) and "second" not in cli.ok("grants", cwd=repo)
    [check] = checks(repo, "unread records")
    assert check["state"] == "warn" and f"in the {old} provider's store" in check["detail"], check
    # put back, the records read again, and nothing is named any more
    config = json.loads((repo / CONFIG).read_text())
    (repo / CONFIG).write_text(json.dumps({**config, "provider": old}))
    assert "left" not in cli.ok("init", "--accept-changes", cwd=repo)
    assert cli.ok("grants", cwd=repo).count("review-thread") == 2
    assert checks(repo, "unread records") == []


def test_a_store_holding_no_record_is_not_named(repo: Path) -> None:
    cli.ok("init", "--provider", "sqlite", cwd=repo)
    config = json.loads((repo / CONFIG).read_text())
    (repo / CONFIG).write_text(json.dumps({**config, "provider": "git"}))
    assert "left" not in cli.ok("init", "--accept-changes", cwd=repo)
    assert checks(repo, "unread records") == []
