"""Measure a safety scanner against a labelled corpus of leaks (used by the tests and the bench).

A labelled corpus keeps files that must be redacted under ``*/valid/`` and files that must be
left alone under ``*/invalid/`` (at any depth below the label folder). The measure is per
file: a valid file is *caught* when the scan redacts at least once, an invalid file is
*flagged* when it does.

Some labels were made for a repository scanner that also looks at file paths and at a
repository's own allow-lists; a scanner of text cannot see either. Such files are listed with
the reason in a disagreements table, reported apart, and never silently dropped: the rates are
given both over every file (raw) and over the files the scanner can judge (adjudicated).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .safety import REDACT, SafetyScanner, default_scanner

VALID = "valid"
INVALID = "invalid"

# Files of ../shared/testdata/secrets/fake-leaks whose label a text scanner cannot or should not
# reproduce, with the reason. Keys are paths relative to the corpus root.
_PATH_LABEL = "a real-looking private key block; the label comes from the file's path, not its text"
LEAK_CORPUS_DISAGREEMENTS: Mapping[str, str] = {
    "github/valid/github-workflows-vulnerable-pr-checkout.yml": (
        "a vulnerable workflow (pull_request_target checking out the PR head), not a secret: "
        "it only references ${{ secrets.GITHUB_TOKEN }}"
    ),
    "aws/invalid/github-private-user-images-link": (
        "the label is about the AWS key id inside the link, which stays; the link's signed jwt "
        "query parameter is a short-lived access token and is redacted"
    ),
    "github/invalid/should-not-match-github-spec/specs/github.json": (
        "eight random 88-character values are marked harmless only by inline pragmas "
        "(# nosec, # notsecret, gitleaks:allow); gitstore does not honour pragmas in scanned text"
    ),
    "pki/invalid/b64-encoded-example-key": (
        "a real-looking key whose only 'example' mark is a comment, yet pki/valid/private.key "
        "carries the same kind of comment and must be redacted"
    ),
    "pki/invalid/cki-project-kernel-ark-key/redhat/keys/stub_key.priv": _PATH_LABEL,
    "pki/invalid/ignore-due-to-dummy-key-filename/dummy.key": _PATH_LABEL,
    "pki/invalid/ignore-due-to-dummy-pem-filename/dummy.pem": _PATH_LABEL,
    "pki/invalid/ignore-ssh-bin/usr/bin/ssh": _PATH_LABEL,
    "pki/invalid/libgnutls-so/lib64/libgnutls.so.30.30.0": _PATH_LABEL,
    "pki/invalid/libssh-so/usr/lib64/libssh.so.4.8.7": _PATH_LABEL,
    "pki/invalid/libssh-so/usr/share/mime/magic": _PATH_LABEL,
    "pki/invalid/libssh-so/usr/share/mime/mime.cache": _PATH_LABEL,
    "pki/invalid/libssh-so/usr/share/mime/packages/freedesktop.org.xml": _PATH_LABEL,
    "pki/invalid/libssh-so/usr/share/misc/magic.mgc": _PATH_LABEL,
    "pki/invalid/upstream-jdk-test/jdk/test/jdk/sun/security/ssl/X509TrustManagerImpl/"
    "PKIXExtendedTM.java": _PATH_LABEL,
    "pki/invalid/ignored-by-config": (
        "a real-looking private key block; the label comes from the corpus's own .gitleaksignore"
    ),
}


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
    """Per-file rates over a labelled corpus, raw and with the documented disagreements apart."""

    outcomes: tuple[Outcome, ...]
    disagreements: Mapping[str, str]

    def _of(self, label: str, adjudicated: bool) -> list[Outcome]:
        return [
            o
            for o in self.outcomes
            if o.label == label and not (adjudicated and o.path in self.disagreements)
        ]

    def valid_rate(self, adjudicated: bool = True) -> float:
        """Share of valid files with at least one redaction."""
        valid = self._of(VALID, adjudicated)
        return sum(o.redactions > 0 for o in valid) / len(valid) if valid else 1.0

    def false_positive_rate(self, adjudicated: bool = True) -> float:
        """Share of invalid files with at least one redaction."""
        invalid = self._of(INVALID, adjudicated)
        return sum(o.redactions > 0 for o in invalid) / len(invalid) if invalid else 0.0

    def disagreeing(self) -> list[str]:
        """Paths whose scan does not match their label, documented or not."""
        return sorted(o.path for o in self.outcomes if not o.agrees)

    def summary(self) -> str:
        """One line per rate, for test output and the bench."""
        counts = {label: len(self._of(label, False)) for label in (VALID, INVALID)}
        return (
            f"valid redacted {self.valid_rate():.1%} adjudicated, {self.valid_rate(False):.1%} raw "
            f"({counts[VALID]} files); invalid flagged {self.false_positive_rate():.1%} "
            f"adjudicated, {self.false_positive_rate(False):.1%} raw ({counts[INVALID]} files); "
            f"{len(self.disagreements)} documented disagreements"
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


def measure(
    root: Path,
    scanner: SafetyScanner | None = None,
    disagreements: Mapping[str, str] = LEAK_CORPUS_DISAGREEMENTS,
) -> Rates:
    """Scan every labelled file below ROOT and return the rates."""
    scanner = scanner or default_scanner()
    outcomes = []
    for label, path in labelled_files(root):
        result = scanner.scan(path.read_text(encoding="utf-8", errors="replace"))
        kinds = tuple(sorted({f.kind for f in result.findings if f.action == REDACT}))
        relative = path.relative_to(root).as_posix()
        outcomes.append(
            Outcome(relative, label, result.redactions, kinds, result.quarantined, result.text)
        )
    return Rates(tuple(outcomes), disagreements)


__all__ = [
    "INVALID",
    "LEAK_CORPUS_DISAGREEMENTS",
    "VALID",
    "Outcome",
    "Rates",
    "labelled_files",
    "measure",
]
