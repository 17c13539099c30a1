"""The conformance suite against a provider written only from the wiki (tests/independent_provider.py)."""

from __future__ import annotations

import ast
import hashlib
import json
import struct
from pathlib import Path

import pytest

from gitstore.conformance import ProviderConformance, batch, entries_for
from gitstore.conformance import _records as R
from gitstore.errors import ConflictError, Refused
from gitstore.providers import Batch, Entry

from .independent_provider import APPEND, IndependentProvider, _frame, canonical, record_digest, strict_json

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "independent_provider.py"
VECTORS = HERE.parent / ".memory-schema" / "v1" / "vectors"


class TestIndependentConformance(ProviderConformance):
    durable = True

    def make(self, location: Path, writer: str = "w1") -> IndependentProvider:
        return IndependentProvider(location / "independent", writer, conflict_error=ConflictError,
                                   refused_error=Refused)


def test_independent_provider_imports_nothing_from_gitstore() -> None:
    tree = ast.parse(SOURCE.read_text(encoding="utf-8"), filename=str(SOURCE))
    imported: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative imports would reach into the tests package
                imported.append("." * node.level + (node.module or ""))
            else:
                imported.append(node.module or "")
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
            "__import__",
            "import_module",
        ):
            imported.extend(a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str))
    offending = [m for m in imported if m.split(".")[0] == "gitstore" or m.startswith(".")]
    assert not offending, f"independent provider imports {offending}"


def _vector_dirs() -> list[Path]:
    if not VECTORS.is_dir():
        return []
    return sorted(p for p in VECTORS.iterdir() if p.is_dir())


@pytest.mark.parametrize("folder", _vector_dirs(), ids=lambda p: p.name)
def test_independent_canonical_form_matches_the_vectors(folder: Path) -> None:
    value = strict_json((folder / "input.json").read_bytes())
    output = (folder / "output.json").read_bytes()
    assert canonical(value) == output
    digest = (folder / "digest.txt").read_text(encoding="utf-8").strip()
    if folder.name.startswith("record-"):
        kind = value["schema"].removeprefix("gitstore.").split("/")[0]  # record-event-label holds an event
        assert record_digest(value, kind) == digest == value["digest"]
    else:
        assert "sha256:" + hashlib.sha256(output).hexdigest() == digest


# -- the independent storage's own failure modes ---------------------------------------------------


def _provider(tmp_path: Path, writer: str = "w1") -> IndependentProvider:
    return IndependentProvider(tmp_path / "independent", writer, conflict_error=ConflictError,
                               refused_error=Refused)


def test_a_torn_tail_is_invisible_and_cut_off_by_the_next_append(tmp_path: Path) -> None:
    provider = _provider(tmp_path)
    first = [R.event(f"t{i}", episode="t", seq=i) for i in range(3)]
    provider.append(batch(*first))
    log = tmp_path / "independent" / "log"
    intact = log.stat().st_size
    provider.append(batch(R.grant("torn")))
    with open(log, "r+b") as f:  # as if the process died in the middle of its write
        f.truncate(log.stat().st_size - 7)
    fresh = _provider(tmp_path)
    assert [s.digest for s in fresh.read()] == [r["digest"] for r in first]
    assert fresh.verify().ok
    fresh.append(batch(R.grant("after")))
    assert [s.digest for s in _provider(tmp_path).read()] == [r["digest"] for r in first] + [R.grant("after")["digest"]]
    assert log.stat().st_size > intact and _provider(tmp_path).verify().ok


def test_damage_before_intact_frames_is_reported_and_blocks_appends(tmp_path: Path) -> None:
    provider = _provider(tmp_path)
    provider.append(batch(R.grant("d1")))
    provider.append(batch(R.grant("d2")))
    log = tmp_path / "independent" / "log"
    raw = bytearray(log.read_bytes())
    at = raw.index(b"d1")
    raw[at : at + 2] = b"XX"
    log.write_bytes(bytes(raw))
    report = _provider(tmp_path).verify()
    assert not report.ok and "followed by intact frames" in " ".join(str(p) for p in report.problems)
    with pytest.raises(Exception, match="run verify"):
        _provider(tmp_path).append(batch(R.grant("d3")))
    assert log.read_bytes() == bytes(raw)  # never repaired


def test_verify_rechecks_digests_schema_and_payloads(tmp_path: Path) -> None:
    provider = _provider(tmp_path)
    good = entries_for([R.grant("honest")])[0]
    provider.append(Batch("shared", (Entry(good.digest, good.kind, good.scope, good.stream,
                                           good.data.replace(b"honest", b"forged")),)))
    other = entries_for([R.grant("v2")])[0]
    provider.append(Batch("shared", (Entry(other.digest, other.kind, other.scope, other.stream,
                                           other.data.replace(b"gitstore.grant/v1", b"gitstore.grant/v2")),)))
    event = entries_for([R.event("bad-payload", text="original")])[0]
    tampered = event.payload.replace(b"original", b"tampered")
    provider.append(Batch("shared", (Entry(event.digest, event.kind, event.scope, event.stream, event.data,
                                           event.payload_digest, tampered),)))
    messages = [str(p) for p in provider.verify().problems]
    assert any(good.digest in m and "does not match its content" in m for m in messages)
    assert any(other.digest in m and "unknown schema version" in m for m in messages)
    assert any(event.digest in m and "does not hash to its digest" in m for m in messages)


def _remove(provider: IndependentProvider, payload_digest: str, reason: str) -> None:
    provider.append(batch(R.audit(reason, [], action="redact"), removals=[(payload_digest, _note(reason))]))


def test_removed_payload_text_leaves_the_disk(tmp_path: Path) -> None:
    provider = _provider(tmp_path)
    record = R.event("secret", text="correct horse battery staple")
    provider.append(batch(record))
    log = tmp_path / "independent" / "log"
    assert b"correct horse battery staple" in log.read_bytes()
    _remove(provider, record["payloadDigest"], "asked")
    assert b"correct horse battery staple" not in log.read_bytes()
    fresh = _provider(tmp_path)
    assert fresh.payload(record["payloadDigest"]) is None
    assert fresh.redaction_note(record["payloadDigest"]) == _note("asked")
    with pytest.raises(ConflictError):
        _remove(fresh, record["payloadDigest"], "again")
    assert fresh.redaction_note(record["payloadDigest"]) == _note("asked")
    assert fresh.verify().ok
    twin = R.event("secret", seq=1, text="correct horse battery staple")  # same payload, new event
    assert twin["payloadDigest"] == record["payloadDigest"]
    fresh.append(batch(twin))
    assert b"correct horse battery staple" not in log.read_bytes()
    assert fresh.payload(record["payloadDigest"]) is None and fresh.verify().ok


def test_a_removal_cut_short_hides_the_payload_and_gc_blanks_it(tmp_path: Path) -> None:
    provider = _provider(tmp_path)
    record = R.event("cut", text="half removed text")
    provider.append(batch(record))
    log = tmp_path / "independent" / "log"
    data = bytearray(log.read_bytes())
    _remove(provider, record["payloadDigest"], "first")
    removal = log.read_bytes()[len(data):]
    log.write_bytes(bytes(data) + removal)  # the removal is durable, the blanking never happened
    assert b"half removed text" in log.read_bytes()
    fresh = _provider(tmp_path)
    assert fresh.payload(record["payloadDigest"]) is None
    assert fresh.verify().ok
    assert fresh.gc().payloads == 1
    assert b"half removed text" not in log.read_bytes()


def test_verify_checks_redaction_notes(tmp_path: Path) -> None:
    provider = _provider(tmp_path)
    provider.append(batch(R.grant("n")))
    log = tmp_path / "independent" / "log"
    for tag, digest, note in (("a", "a" * 64, '{"at":"x","by":"y","reason":"z"}'),
                              ("b", "b" * 64, '{"by":"y","at":"x","reason":"z","sourceId":null}'),
                              ("c", "c" * 64, "not json")):
        header = json.dumps({"clock": 10 + ord(tag), "writer": "w1", "namespace": "shared", "entries": [],
                             "removals": [{"payloadDigest": "sha256:" + digest, "note": note}]}).encode()
        with open(log, "ab") as f:
            f.write(_frame(APPEND, struct.pack(">I", len(header)) + header))
    problems = [str(p) for p in _provider(tmp_path).verify().problems]
    assert any("a" * 64 in p and "not a redaction object" in p for p in problems)
    assert any("b" * 64 in p and "canonical" in p for p in problems)
    assert any("c" * 64 in p and "not valid JSON" in p for p in problems)
    assert len(problems) == 3


def _note(reason: str) -> bytes:
    return canonical({"at": "2026-08-01T00:00:00.000000Z", "by": "github:583231",
                      "reason": reason, "sourceId": None})
