"""Measure a safety scanner against a labelled corpus of leaks (used by the tests).

A labelled corpus keeps files that must be redacted under ``*/valid/`` and files that must be
left alone under ``*/invalid/`` (at any depth below the label folder). The measure is per
file: a valid file is *caught* when the scan redacts at least once, an invalid file is
*flagged* when it does. Each file is scanned as what it is in the corpus, the content of the
file at its path (relative to the corpus root), so the scanner sees what a repository scanner
sees; a corpus whose labels rest on its own allow list is measured with that list, given as a
scanner built with it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from gitstore.safety.scanner import REDACT, SafetyScanner, default_scanner

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
            f" {left} of {len(invalid)} (flagged {self.false_positive_rate():.1%})"
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


__all__ = [
    "INVALID",
    "VALID",
    "Outcome",
    "Rates",
    "labelled_files",
    "measure",
]
