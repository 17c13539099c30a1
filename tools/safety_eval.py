"""Measure a safety scanner on third-party material (used by the tests; ``python -m
tools.safety_eval`` prints every figure).

Leaks. A labelled corpus keeps files that must be redacted under ``*/valid/`` and files that
must be left alone under ``*/invalid/`` (at any depth below the label folder). The measure is
per file: a valid file is *caught* when the scan redacts at least once, an invalid file is
*flagged* when it does; recall is the share of valid files caught, precision the share of
caught files that are valid. Each file is scanned as what it is in the corpus, the content of
the file at its path (relative to the corpus root), so the scanner sees what a repository
scanner sees; a corpus whose labels rest on its own allow list is measured with that list,
given as a scanner built with it.

Ordinary text. Real sessions, review payloads and documentation hold no attack, so every text
in them the scanner quarantines is a false positive: :func:`ordinary_texts` yields each text
the store would screen (every string of a JSON or JSON Lines file, every paragraph of a
markdown file), without terminal colour codes as capture screens it, and :func:`flagged`
lists the ones quarantined (or redacted).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitstore.capture.screening import without_terminal_codes
from gitstore.safety.scanner import QUARANTINE, REDACT, SafetyScanner, default_scanner

VALID = "valid"
INVALID = "invalid"


@dataclass(frozen=True)
class Outcome:
    """One labelled file and what the scanner did with it (kinds and counts only)."""

    path: str
    label: str
    redactions: int
    kinds: tuple[str, ...]
    quarantined: bool
    text: str = field(repr=False)

    @property
    def agrees(self) -> bool:
        """True when the scan matches the label."""
        return (self.redactions > 0) == (self.label == VALID)


@dataclass(frozen=True)
class Rates:
    """Per-file rates over a labelled corpus."""

    outcomes: tuple[Outcome, ...]

    def _of(self, label: str) -> list[Outcome]:
        return [o for o in self.outcomes if o.label == label]

    def valid_rate(self) -> float:
        """Share of valid files with at least one redaction."""
        valid = self._of(VALID)
        return sum(o.redactions > 0 for o in valid) / len(valid) if valid else 1.0

    def false_positive_rate(self) -> float:
        """Share of invalid files with at least one redaction."""
        invalid = self._of(INVALID)
        return sum(o.redactions > 0 for o in invalid) / len(invalid) if invalid else 0.0

    def recall(self) -> float:
        """Share of valid files caught (the same as ``valid_rate``)."""
        return self.valid_rate()

    def precision(self) -> float:
        """Share of files with a redaction that are valid (1.0 when none has one)."""
        flagged = [o for o in self.outcomes if o.redactions > 0]
        return sum(o.label == VALID for o in flagged) / len(flagged) if flagged else 1.0

    def disagreeing(self) -> list[str]:
        """Paths whose scan does not match their label."""
        return sorted(o.path for o in self.outcomes if not o.agrees)

    def summary(self) -> str:
        """One line with both rates, for test output and the bench."""
        valid, invalid = self._of(VALID), self._of(INVALID)
        caught = sum(o.redactions > 0 for o in valid)
        left = sum(o.redactions == 0 for o in invalid)
        return (
            f"valid redacted {caught} of {len(valid)} ({self.valid_rate():.1%}); invalid left alone"
            f" {left} of {len(invalid)} (flagged {self.false_positive_rate():.1%}); precision"
            f" {self.precision():.1%}, recall {self.recall():.1%}"
        )


def labelled_files(root: Path) -> Iterator[tuple[str, Path]]:
    """``(label, path)`` for every file below a ``valid`` or ``invalid`` folder of ROOT."""
    for path in sorted(root.rglob("*")):
        if not path.is_file():
            continue
        parts = path.relative_to(root).parts
        label = next((p for p in parts[:-1] if p in (VALID, INVALID)), None)
        if label:
            yield label, path


def measure(root: Path, scanner: SafetyScanner | None = None) -> Rates:
    """Scan every labelled file below ROOT as the content of its path and return the rates."""
    scanner = scanner or default_scanner()
    outcomes = []
    for label, path in labelled_files(root):
        relative = path.relative_to(root).as_posix()
        result = scanner.scan(path.read_text(encoding="utf-8", errors="replace"), path=relative)
        kinds = tuple(sorted({f.kind for f in result.findings if f.action == REDACT}))
        outcomes.append(
            Outcome(relative, label, result.redactions, kinds, result.quarantined, result.text)
        )
    return Rates(tuple(outcomes))


_PARAGRAPH = re.compile(r"\n[ \t]*\n")


def _strings(value: Any) -> Iterator[str]:
    """Every string of a parsed JSON value, keys left out."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _json_values(text: str, jsonl: bool) -> Iterator[Any]:
    lines = text.splitlines() if jsonl else [text]
    for line in lines:
        try:
            yield json.loads(line)
        except ValueError:
            continue


def ordinary_texts(root: Path) -> Iterator[tuple[str, str]]:
    """``(where, text)`` for every text below ROOT the store would screen: each string of a JSON
    or JSON Lines file (messages, tool output, commands, comment bodies) and each paragraph of
    a markdown file."""
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.suffix not in (".json", ".jsonl", ".md"):
            continue
        where = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".md":
            pieces: Iterable[str] = _PARAGRAPH.split(text)
        else:
            pieces = (s for value in _json_values(text, path.suffix == ".jsonl") for s in _strings(value))
        for piece in pieces:
            if piece.strip():
                yield where, without_terminal_codes(piece)


def flagged(texts: Iterable[tuple[str, str]], action: str = QUARANTINE,
            scanner: SafetyScanner | None = None) -> list[tuple[str, tuple[str, ...]]]:
    """``(where, kinds)`` for each text in which the scanner finds something to ACTION
    (quarantine, by default, or redact)."""
    scanner = scanner or default_scanner()
    found = []
    for where, text in texts:
        kinds = tuple(sorted({f.kind for f in scanner.scan(text).findings if f.action == action}))
        if kinds:
            found.append((where, kinds))
    return found


def main(argv: list[str] | None = None) -> int:
    """Print the scanner's figures on the test material (``--testdata DIR``, default
    ``$GITSTORE_TESTDATA`` or the shared material beside the checkout)."""
    import argparse

    from gitstore.safety.files import Allowlist
    from gitstore.safety.scanner import ConservativeScanner

    root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(prog="python -m tools.safety_eval", description=main.__doc__)
    from tools.testdata import testdata_root

    parser.add_argument("--testdata", type=Path, default=testdata_root())
    data = parser.parse_args(argv).testdata
    if not data.is_dir():
        print(f"safety_eval: no test material at {data}", file=sys.stderr)
        return 1
    allow_file = root / "tests" / "fake-leaks.gitstore-allow"
    allow = Allowlist.parse(allow_file.read_text(encoding="utf-8"), allow_file.name)
    print(f"fake-leaks: {measure(data / 'secrets' / 'fake-leaks', ConservativeScanner(allow)).summary()}")
    scanner = default_scanner()
    detect = sorted(p for p in (data / "secrets" / "detect-secrets").rglob("*") if p.is_file())
    redactions = {p.relative_to(data).as_posix(): scanner.scan(p.read_text(encoding="utf-8", errors="replace")).redactions
                  for p in detect}
    print(f"detect-secrets: {sum(redactions.values())} redactions in {sum(1 for n in redactions.values() if n)}"
          f" of {len(redactions)} files")
    trojan = sorted(p for p in (data / "unicode" / "trojan-source").rglob("*") if p.is_file() and p.suffix != "")
    attacks = [p for p in trojan if "homoglyph" not in p.name]
    caught = sum(scanner.scan(p.read_text(encoding="utf-8", errors="replace")).quarantined for p in attacks)
    print(f"trojan-source: {caught} of {len(attacks)} bidi and invisible samples quarantined")
    for folder in ("transcripts", "reviews", "skills", "okf"):
        texts = list(ordinary_texts(data / folder))
        found = flagged(texts, QUARANTINE, scanner)
        redacted = flagged(texts, REDACT, scanner)
        print(f"{folder}: of {len(texts)} ordinary texts, {len(found)} quarantined, {len(redacted)} redacted"
              f" ({', '.join(sorted({k for _, kinds in redacted for k in kinds})) or 'nothing'})")
        for where, kinds in found:
            print(f"  quarantined in {where}: {', '.join(kinds)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = [
    "INVALID",
    "VALID",
    "Outcome",
    "Rates",
    "labelled_files",
    "measure",
    "ordinary_texts",
    "flagged",
]
