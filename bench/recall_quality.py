"""Recall quality on the fixed labelled set in ``bench/recall_set.json``: learnings in several
languages (English, Chinese, Japanese, Korean, Vietnamese, Spanish, German) and prompts a
developer might type, each naming the learning it should recall. The index is written from
the set directly (the same rows and scoring the store's index uses), every query is recalled
within the ceilings, and a query counts when its learning is among the items returned (top 3).
Used by ``tests/test_deliver_recall.py`` and ``python -m bench recall``."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from gitstore.deliver.build import row, write_index
from gitstore.deliver.index import open_file
from gitstore.deliver.limits import Limits
from gitstore.deliver.recall import recall

SET = Path(__file__).resolve().parent / "recall_set.json"
NOW = "2026-06-01T00:00:00.000000Z"


@dataclass
class Quality:
    hits: int
    total: int
    misses: list[dict[str, object]] = field(default_factory=list)
    by_language: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return self.hits / self.total if self.total else 0.0


def evaluate(folder: Path, data: dict[str, object] | None = None) -> Quality:
    """Index the set's learnings in ``folder`` and count the queries whose learning is returned."""
    data = data or json.loads(SET.read_text(encoding="utf-8"))
    learnings = data["learnings"]  # type: ignore[index]
    rows = [row(f"lrn_{n:032x}", f"sha256:{n:064x}", "human", item["title"], item["text"], "\n".join(item["targets"]),
                item["evidence"], ["review-thread #1"]) for n, item in enumerate(learnings)]  # type: ignore[union-attr]
    key_of = {f"lrn_{n:032x}": item["key"] for n, item in enumerate(learnings)}  # type: ignore[union-attr]
    path = folder / "quality.sqlite"
    write_index(str(path), rows, "quality")
    index = open_file(str(path), "quality")
    assert index is not None
    quality = Quality(0, 0)
    seen: Counter[str] = Counter()
    found: Counter[str] = Counter()
    try:
        for case in data["queries"]:  # type: ignore[union-attr]
            got = [key_of[i["id"]] for i in recall(index, case["query"], NOW, Limits()).items]
            language = case["expect"].split("-")[0]
            seen[language] += 1
            quality.total += 1
            if case["expect"] in got:
                quality.hits += 1
                found[language] += 1
            else:
                quality.misses.append({"query": case["query"], "expect": case["expect"], "got": got})
    finally:
        index.close()
    quality.by_language = {lang: (found[lang], seen[lang]) for lang in sorted(seen)}
    return quality
