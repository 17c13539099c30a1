"""Signing appends with the user's own git configuration, and checking their signatures.

Appends that carry authority (decisions, grants, withdrawals, removals), and a proposal written
by hand by the person the clone signs as (``Store._signs_proposal``), are signed commits,
made as ``git commit -S`` makes them with SSH keys: ``gpg.format = ssh``, ``user.signingkey``
(a key file, or ``key::<public key>`` for a key held by the agent) and ``gpg.ssh.program``
(default ``ssh-keygen``). The commit's bytes are signed with ``ssh-keygen -Y sign -n git`` and
the signature kept in the commit's ``gpgsig`` header, so ``git log --show-signature`` and
``git verify-commit`` with the same allowed_signers file agree with gitstore.

A signature is checked against an ``allowed_signers`` file (the policy's) with
``ssh-keygen -Y verify -n git``, at the commit's own time so a key's ``valid-after`` and
``valid-before`` apply as git applies them; no network is involved. Signing and checking
run the program in a temporary folder of their own; nothing is written elsewhere.
"""

from __future__ import annotations

import base64
import os
import re
import struct
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import cast

import pygit2

from gitstore._gitconfig import value as git_setting
from gitstore.errors import Refused
from gitstore.records.policy import canonical

NAMESPACE = "git"
ARMOR = b"-----BEGIN SSH SIGNATURE-----"
TIMEOUT = 60.0


class SignatureProblem(Exception):
    """A signature that does not verify; the message says why."""


@dataclass(frozen=True)
class Signer:
    """How this clone signs: the program and the key git's configuration names."""

    program: str
    key: str  # a key file, or a public key ("ssh-ed25519 AAAA...") held by the agent
    literal: bool

    def public(self) -> str | None:
        """The public key (``type base64``, canonical), when it can be read without a passphrase."""
        if self.literal:
            return _two_fields(self.key)
        path = Path(self.key).expanduser()
        for candidate in (path.with_name(path.name + ".pub"), path):
            try:
                text = candidate.read_text(encoding="ascii", errors="replace")
            except OSError:
                continue
            if text.startswith(("ssh-", "ecdsa-", "sk-")):
                return _two_fields(text)
        return None

    def sign(self, payload: bytes) -> bytes:
        """An armored SSH signature of ``payload`` in the git namespace."""
        with tempfile.TemporaryDirectory(prefix="gitstore-sign-") as folder:
            data = Path(folder) / "payload"
            data.write_bytes(payload)
            args = [self.program, "-Y", "sign", "-n", NAMESPACE]
            if self.literal:
                key = Path(folder) / "key.pub"
                key.write_text(self.key + "\n", encoding="ascii")
                args += ["-f", str(key), "-U"]
            else:
                args += ["-f", str(Path(self.key).expanduser())]
            done = _run([*args, str(data)])
            if done.returncode != 0:
                raise Refused(f"signing with {self.key} failed: {_last_line(done.stderr)} (git config user.signingkey)")
            return (Path(folder) / "payload.sig").read_bytes()


def signer(repo: pygit2.Repository) -> tuple[Signer | None, str]:
    """This clone's signer from git configuration, or None and what to configure."""
    fmt = _get(repo, "gpg.format") or "openpgp"
    key = _get(repo, "user.signingkey")
    if fmt != "ssh":
        return None, ("gitstore signs with SSH keys: `git config gpg.format ssh && git config user.signingkey "
                      "KEY.pub`, where KEY.pub is your public key")
    if not key:
        return None, "`git config user.signingkey KEY.pub`, where KEY.pub is the public key the policy lists for you"
    program = _get(repo, "gpg.ssh.program") or "ssh-keygen"
    if key.startswith("key::"):
        return Signer(program, key[len("key::"):].strip(), True), ""
    if key.startswith(("ssh-", "ecdsa-", "sk-")):
        return Signer(program, key.strip(), True), ""
    return Signer(program, key, False), ""


def _get(repo: pygit2.Repository, name: str) -> str | None:
    """``name`` as git reads it (``gitstore._gitconfig``), None when unset or empty."""
    return git_setting(repo, name) or None


def signed_commit(repo: pygit2.Repository, who: Signer, author: pygit2.Signature, message: str,
                  tree: pygit2.Oid, parents: list[pygit2.Oid]) -> pygit2.Oid:
    """Write a commit signed by ``who`` (no ref moves)."""
    # the commit's text (pygit2's stubs call it an Oid)
    payload = cast(str, repo.create_commit_string(author, author, message, tree, list[str | pygit2.Oid](parents)))
    signature = who.sign(payload.encode("utf-8"))
    return repo.create_commit_with_signature(payload, signature.decode("ascii"), "gpgsig")


# -- checking ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Checked:
    """A signature that verified: the key (``type base64``) and the people it may sign for."""

    key: str
    principals: tuple[str, ...]


def signature_of(commit: pygit2.Commit) -> tuple[bytes, bytes] | None:
    """A commit's signature and the bytes it signs, or None when it is not signed."""
    signature, payload = commit.gpg_signature
    if not signature:
        return None
    return signature, payload


def signing_key(signature: bytes) -> str:
    """The public key (``type base64``, canonical: ``gitstore.records.policy.canonical``) an
    armored SSH signature names; SignatureProblem when it is not one."""
    text = signature.strip()
    if not text.startswith(ARMOR):
        raise SignatureProblem("not an SSH signature (gitstore checks SSH signatures only)")
    body = b"".join(line for line in text.splitlines()[1:-1])
    try:
        blob = base64.b64decode(body, validate=True)
        if blob[:6] != b"SSHSIG":
            raise ValueError("no SSHSIG magic")
        key, _ = _string(blob, 10)
        key_type, _ = _string(key, 0)
    except (ValueError, struct.error, IndexError) as exc:
        raise SignatureProblem(f"malformed SSH signature ({exc})") from None
    # canonical: the key field is the signer's to write, and OpenSSH reads one key written two ways alike
    return canonical(f"{key_type.decode('ascii', 'replace')} {base64.b64encode(key).decode('ascii')}")


def _string(data: bytes, at: int) -> tuple[bytes, int]:
    (size,) = struct.unpack(">I", data[at:at + 4])
    end = at + 4 + size
    if end > len(data):
        raise ValueError("truncated")
    return data[at + 4:end], end


def check(program: str, commit: pygit2.Commit, allowed_signers: bytes, principals: list[str]) -> Checked:
    """Verify a commit's SSH signature against ``allowed_signers`` as each of ``principals``
    (those the policy's reading of the file lists for the signing key), at the commit's time.
    It counts for those ssh-keygen verifies it for, and nobody else: a person ssh-keygen was not
    asked about is never counted on the strength of another's verdict."""
    found = signature_of(commit)
    if found is None:
        raise SignatureProblem("not signed")
    signature, payload = found
    key = signing_key(signature)
    if not principals:
        raise SignatureProblem(f"signed by a key the policy does not list ({_fingerprint_hint(key)})")
    when = signed_at(commit)
    verified: list[str] = []
    refusal = b""
    with tempfile.TemporaryDirectory(prefix="gitstore-verify-") as folder:
        signers, sig = Path(folder) / "allowed_signers", Path(folder) / "commit.sig"
        signers.write_bytes(utc_validity(allowed_signers))
        sig.write_bytes(signature)
        for person in dict.fromkeys(principals):
            done = _run([program, "-Y", "verify", "-f", str(signers), "-I", person, "-n", NAMESPACE,
                         "-s", str(sig), f"-Overify-time={when}Z"], payload)
            if done.returncode == 0:
                verified.append(person)
            else:
                refusal = done.stderr or done.stdout
    if not verified:
        raise SignatureProblem(f"the signature does not verify: {_last_line(refusal)}")
    return Checked(key, tuple(verified))


def made_with(program: str, commit: pygit2.Commit) -> str:
    """The key (``type base64``) a commit's signature names, checked to have made it: the
    signature verifies against that key alone, at the commit's time, whoever the policy lists
    it for. A signature's key field is only a claim (anyone can write another key's there), so
    before a signature is made again with the key it names, that key must have made it;
    SignatureProblem when it did not."""
    found = signature_of(commit)
    if found is None:
        raise SignatureProblem("not signed")
    key = signing_key(found[0])
    return check(program, commit, f"{_ITS_KEY} {key}\n".encode("utf-8"), [_ITS_KEY]).key


_ITS_KEY = "signer"  # the one principal of the file that lists the key a signature names


def utc_validity(allowed_signers: bytes) -> bytes:
    """``allowed_signers`` with a ``Z`` after each ``valid-after`` and ``valid-before`` time
    that lacks one. The policy reads these times as UTC; ssh-keygen reads a time without ``Z``
    as the reader's local time, so clones in two time zones would disagree on a signature."""
    return _VALIDITY.sub(rb"\1\2Z", allowed_signers)


_VALIDITY = re.compile(rb"(?<![^\s,])(valid-(?:after|before)=\"?)([0-9]{8}(?:[0-9]{4}(?:[0-9]{2})?)?)(?![0-9Z])")


def signed_at(commit: pygit2.Commit) -> str:
    """The commit's time as ``ssh-keygen -Overify-time`` and allowed_signers take it
    (YYYYMMDDHHMMSS, UTC, to be followed by ``Z``: without it ssh-keygen reads local time); a
    time no calendar date holds (a forger can write any number) is a problem of that signature,
    never an error of the read that meets it."""
    try:
        return datetime.fromtimestamp(commit.committer.time, timezone.utc).strftime("%Y%m%d%H%M%S")
    except (OverflowError, OSError, ValueError):
        raise SignatureProblem(f"its commit time {commit.committer.time} is no date") from None


def signed_now() -> str:
    """Now, as ``signed_at`` gives a commit's time: the time an append signed now is checked at."""
    return datetime.now(timezone.utc).strftime("%Y%m%d%H%M%S")


def _fingerprint_hint(key: str) -> str:
    kind, _, blob = key.partition(" ")
    return f"{kind} {blob[:20]}..."


def _run(args: list[str], data: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k.startswith("GIT_CONFIG")}
    try:
        return subprocess.run(args, input=data, capture_output=True, env=env, timeout=TIMEOUT)
    except FileNotFoundError:
        raise Refused(f"{args[0]} is not installed (gpg.ssh.program)") from None
    except subprocess.TimeoutExpired:
        raise Refused(f"{args[0]} did not finish in {TIMEOUT:g} s (is a passphrase prompt waiting?)") from None


def _two_fields(text: str) -> str | None:
    parts = text.split()
    return canonical(f"{parts[0]} {parts[1]}") if len(parts) >= 2 else None


def _last_line(data: bytes) -> str:
    lines = data.decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else "(no message)"


__all__ = ["Checked", "SignatureProblem", "Signer", "check", "made_with", "signature_of", "signed_commit", "signer",
           "signing_key"]
