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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gitstore import canonicalize, kind_of, seal
from gitstore.records.contracts import stream_of
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


def entry(record: dict[str, Any]) -> Entry:
    """The provider entry for a sealed record (payload stored apart), as the store makes it."""
    record = dict(record)
    kind = kind_of(record)
    payload = record.pop("payload", None)
    return Entry(
        digest=record["digest"],
        kind=kind,
        scope=record["scope"],
        stream=stream_of(record, kind),
        data=canonicalize(record),
        payload_digest=record.get("payloadDigest"),
        payload=canonicalize(payload) if payload is not None else None,
    )


def batch(*records: dict[str, Any], namespace: Namespace = "shared") -> Batch:
    """One batch of sealed records."""
    return Batch(namespace, tuple(entry(r) for r in records))


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


STEP_WRITER_SCRIPT = """
import sys
from gitstore import canonicalize
from tests.provider_records import batch, event, grant, remove
from {module} import {cls}
{prelude}
provider = {cls}(sys.argv[1], "stepper")

def note(tag):
    return canonicalize({{"at": "2026-08-01T00:00:00.000000Z", "by": "github:583231",
                         "reason": tag, "sourceId": None}})

for line in sys.stdin:
    command, tag = line.split()
    if command == "grant":
        provider.append(batch(grant(tag)))
    elif command == "event":
        provider.append(batch(event(tag, f"text of {{tag}}")))
    elif command == "remove":
        remove(provider, event(tag, f"text of {{tag}}")["payloadDigest"], note(tag), f"removal of {{tag}}")
    print("ok", flush=True)
"""


class StepWriter:
    """Another process appending to a store one step at a time, when told: ``grant TAG``,
    ``event TAG`` (an event whose payload is ``text of TAG``) or ``remove TAG`` (that payload,
    with its audit entry). ``prelude`` is code run before the provider opens (a pause at some
    point of an append: it may print a line and read one). A test makes an append land at the
    precise moment it means to check, whatever the machine's speed."""

    def __init__(self, module: str, cls: str, location: Path, prelude: str = "") -> None:
        script = STEP_WRITER_SCRIPT.format(module=module, cls=cls, prelude=prelude)
        self.process = subprocess.Popen(
            [sys.executable, "-c", script, str(location)], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def answer(self) -> str:
        assert self.process.stdout is not None
        return self.process.stdout.readline().decode().strip()

    def do(self, command: str, tag: str) -> None:
        """One append, acknowledged before this returns."""
        self.send(f"{command} {tag}")
        assert self.answer() == "ok", f"the writer failed at {command} {tag}"

    def __enter__(self) -> StepWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()  # a writer paused waiting for a line goes on, then ends
        self.process.wait(timeout=60)


def at_first_call(monkeypatch: Any, owner: object, name: str, step: Callable[[], None], *,
                  after: bool = False) -> list[int]:
    """Make ``step`` run when ``owner.name`` is first called, before the real call does (or
    ``after`` it returned): an append a StepWriter makes there lands at that precise point of
    a read. Returns a list that holds one item once it ran."""
    real = getattr(owner, name)
    fired: list[int] = []

    def hooked(*args: object) -> object:
        first = not fired
        fired.append(1)
        if first and not after:
            step()
        result = real(*args)
        if first and after:
            step()
        return result

    monkeypatch.setattr(owner, name, hooked)
    return fired
