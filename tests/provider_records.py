"""Real sealed records for provider tests, built from the v1 valid examples.

Records are the examples in ``.memory-schema/v1/examples/valid/``, re-sealed with a tag where a
test needs many distinct ones; entries are made the way the store makes them (payload apart).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from gitstore import canonicalize, kind_of, seal
from gitstore.providers._base import Batch, Entry, Namespace, Removal

from .conftest import CONTRACTS, ROOT

EXAMPLES = CONTRACTS / "examples" / "valid"


def example(kind: str) -> dict[str, Any]:
    """The valid example record of one kind."""
    record: dict[str, Any] = json.loads((EXAMPLES / f"{kind}.json").read_text(encoding="utf-8"))
    return record


def examples() -> list[dict[str, Any]]:
    """Every valid example, one per kind, in file-name order."""
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(EXAMPLES.glob("*.json"))]


def grant(tag: str) -> dict[str, Any]:
    """A distinct valid grant: the example with the tag in its note."""
    return seal({**example("grant"), "note": f"grant {tag}"})


def event(tag: str, text: str) -> dict[str, Any]:
    """A distinct valid comment event whose payload carries ``text``."""
    record = example("event")
    record["id"] = "ev_" + hashlib.sha256(tag.encode()).hexdigest()[:32]
    record["payload"] = {**record["payload"], "text": text}
    return seal(record)


def entry(record: dict[str, Any], stream: str | None = None) -> Entry:
    """The provider entry for a sealed record (payload stored apart), as the store makes it."""
    record = dict(record)
    kind = kind_of(record)
    payload = record.pop("payload", None)
    return Entry(
        digest=record["digest"],
        kind=kind,
        scope=record["scope"],
        stream=stream or kind,
        data=canonicalize(record),
        payload_digest=record.get("payloadDigest"),
        payload=canonicalize(payload) if payload is not None else None,
    )


def batch(*records: dict[str, Any], namespace: Namespace = "shared", stream: str | None = None) -> Batch:
    """One batch of sealed records."""
    return Batch(namespace, tuple(entry(r, stream) for r in records))


def audit(tag: str) -> dict[str, Any]:
    """A distinct valid redaction audit entry."""
    return seal({**example("audit"), "action": "redact", "reason": f"removal {tag}"})


def remove(provider: Any, payload_digest: str, note: bytes, tag: str | None = None) -> None:
    """Remove a payload the way the store does: with its audit entry, in one append."""
    record = audit(tag or note.decode())
    provider.append(Batch("shared", (entry(record),), (Removal(payload_digest, note),)))


WRITER_SCRIPT = """
import sys
from tests.provider_records import batch, grant
from {module} import {cls}
location, writer, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
provider = {cls}(location, writer)
for i in range(count):
    provider.append(batch(grant(f"{{writer}}-{{i}}-a"), grant(f"{{writer}}-{{i}}-b")))
"""


def run_writers(module: str, cls: str, location: Path, processes: int, count: int) -> None:
    """Run ``processes`` real processes, each appending ``count`` two-record batches as its own
    writer; assert every one exits cleanly with nothing on stderr."""
    script = WRITER_SCRIPT.format(module=module, cls=cls)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    children = [
        subprocess.Popen([sys.executable, "-c", script, str(location), f"p{n}", str(count)],
                         cwd=ROOT, env=env, stderr=subprocess.PIPE)
        for n in range(processes)
    ]
    for child in children:
        _, err = child.communicate(timeout=300)
        assert child.returncode == 0 and not err, err.decode(errors="replace")
