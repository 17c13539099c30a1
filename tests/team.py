"""A team sharing one remote, for the trust tests: a bare repository every clone pushes to and
fetches from (its origin), SSH keys made with ssh-keygen in temporary folders, the policy
committed on the default branch, clones that sign with their person's key."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pygit2

from gitstore.context import Context
from gitstore.ops.setup import init
from gitstore.records.policy import POLICY_FILE, SIGNERS_FILE, policy_text

from .conftest import git, made_once

EVERYTHING = ("accept", "reject", "retire", "supersede", "merge", "withdraw", "grant", "redact")
MEMORY_PUSH = ("refs/memory/v1/records/shared/*:refs/memory/v1/records/shared/*",
               "+refs/memory/v1/payloads/shared/*:refs/memory/v1/payloads/shared/*")


def keypair(folder: Path, name: str) -> tuple[Path, str]:
    """A new ed25519 key without a passphrase: its private key file and public key text (a
    copy of one made once for this name and its turn in the test: ``templates``)."""
    from .templates import copy_files

    file = name.replace(":", "_")

    def made(there: Path) -> None:
        there.mkdir()
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(there / file)],
                       check=True)

    copy_files(("key", name), folder, [file, file + ".pub"], made)
    path = folder / file
    return path, " ".join(path.with_name(path.name + ".pub").read_text().split()[:2])


def write_policy(root: Path, people: dict[str, tuple[str, ...]], keys: dict[str, str],
                 extra_lines: str = "") -> None:
    """The two policy files in a work tree (not committed)."""
    (root / ".gitstore").mkdir(exist_ok=True)
    (root / POLICY_FILE).write_text(policy_text({p: list(a) for p, a in people.items()}))
    lines = "".join(f'{who} namespaces="git" {key}\n' for who, key in keys.items())
    (root / SIGNERS_FILE).write_text(lines + extra_lines)


def commit_all(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def sign_as(root: Path, key: Path) -> None:
    """Make a clone sign with ``key`` (git's own configuration, local to the clone)."""
    config = pygit2.Repository(str(root)).config  # as git config writes them, without a process each
    config["gpg.format"] = "ssh"
    config["user.signingkey"] = str(key)


def shared_remote(tmp: Path) -> Path:
    """An empty bare repository whose own origin names the team's repository, so every clone
    of it has the scope github.com/acme/widgets."""
    bare = tmp / "remote.git"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(bare))
    git(bare, "remote", "add", "origin", "https://github.com/acme/widgets.git")
    return bare


def seeded_remote(tmp: Path) -> Path:
    """``shared_remote`` holding one commit on main (a README), pushed from a seed repository."""
    bare = shared_remote(tmp)
    seed = tmp / "seed"
    git(tmp, "init", "-q", "-b", "main", str(seed))
    git(seed, "remote", "add", "origin", str(bare))
    (seed / "README.md").write_text("# widgets\n")
    commit_all(seed, "root")
    git(seed, "push", "-q", "-u", "origin", "main")
    return bare


def first_clone(tmp: Path, bare: Path, name: str = "alice") -> Path:
    """The clone that starts the repository: one commit on main, pushed."""
    root = tmp / name
    git(tmp, "init", "-q", "-b", "main", str(root))
    git(root, "remote", "add", "origin", str(bare))
    (root / "README.md").write_text("# widgets\n")
    commit_all(root, "root")
    git(root, "push", "-q", "-u", "origin", "main")
    git(root, "remote", "set-head", "origin", "main")
    _memory(root)
    return root


def policy_clone(tmp: Path, origin: str, keys: dict[str, tuple[Path, str]]) -> Context:
    """The clone that starts the repository at ``origin`` (a URL git reaches, however spelled),
    with a policy letting each of ``keys`` decide, set up for gitstore, signing as github:9."""
    root = tmp / "alice"
    git(tmp, "init", "-q", "-b", "main", str(root))
    git(root, "remote", "add", "origin", origin)
    write_policy(root, {who: EVERYTHING for who in keys}, {who: public for who, (_, public) in keys.items()})
    commit_all(root, "Who may decide")
    git(root, "push", "-q", "-u", "origin", "main")
    init(root)
    sign_as(root, keys["github:9"][0])
    return Context.open(root)


def team_clone(tmp: Path, bare: Path, name: str, key: Path | None = None) -> Context:
    """A clone of the team's remote, set up for gitstore, its memory fetched, signing with
    ``key`` when given."""
    root = tmp / name
    git(tmp, "clone", "-q", str(bare), str(root))
    _memory(root)
    git(root, "fetch", "-q", "origin")
    if key is not None:
        sign_as(root, key)
    return Context.open(root)


def _memory(root: Path) -> None:
    init(root)  # the fetch refspecs: plain git fetch brings shared memory
    config = pygit2.Repository(str(root)).config
    for spec in MEMORY_PUSH:  # branches are pushed on purpose, as people do
        config.set_multivar("remote.origin.push", "a^", spec)  # a pattern no value matches: git config --add


def sync(*clones: Context) -> list[Context]:
    """Every clone pushes its memory, then every clone fetches everyone's; fresh contexts."""
    for ctx in clones:
        git(ctx.workspace.root, "push", "-q", "origin")
    for ctx in clones:
        git(ctx.workspace.root, "fetch", "-q", "origin")
    return [Context.open(ctx.workspace.root) for ctx in clones]


@made_once
def two_reviewers(tmp: Path, alice: str = "github:9", bob: str = "github:10") -> tuple[Context, Context]:
    """A team of two under a policy that lets both do everything: alice's clone (which made
    the repository) and bob's, each signing with their own key (made once per run, each call
    given its own copy: ``made_once``)."""
    keys = {who: keypair(tmp / "keys", who) for who in (alice, bob)}
    bare = shared_remote(tmp)
    root = first_clone(tmp, bare)
    write_policy(root, {alice: EVERYTHING, bob: EVERYTHING}, {who: key for who, (_, key) in keys.items()})
    commit_all(root, "Who may decide")
    git(root, "push", "-q", "origin", "main")
    sign_as(root, keys[alice][0])
    return Context.open(root), team_clone(tmp, bare, "bob", keys[bob][0])



def proposal_of_two(tmp: Path) -> tuple[Context, Context, dict]:
    """Alice and bob (``two_reviewers``), alice's proposal citing a review comment of hers, both
    synced: a learning each of them may decide on."""
    from .world import Thread, grant_all, propose, ref

    alice, bob = two_reviewers(tmp)
    grant_all(alice)
    thread = Thread(alice, 7, "100")
    comment = thread.comment("100", "Use jitter on retries.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    proposal = propose(alice, [ref(comment)])
    alice, bob = sync(alice, bob)
    return alice, bob, proposal

def forge(root: Path, writer: str, records: list[dict], *, clock: int | None = None, key: Path | None = None,
          policy: str | None = None, removals: tuple[tuple[str, bytes], ...] = (), blind: bool = False,
          seen: tuple[tuple[str, str], ...] | None = None, raw: bool = False) -> str:
    """Append ``records`` as writer ``writer`` the way a forger with push access could: through
    the provider (so the layout is right), then the commit made again with the clock it claims,
    without the heads it had seen when ``blind`` (or naming ``seen`` instead), signed with ``key`` when given (naming
    ``policy`` as its revision). ``raw``: each record's canonical bytes stored as they are, which
    the store would refuse on the way in. Returns the commit id; the ref points at it."""
    import pygit2

    from gitstore.conformance import batch
    from gitstore.providers import Batch, Entry
    from gitstore.providers.git import GitProvider, parse_message, format_message, records_ref
    from gitstore.providers._gitdirs import state_dir
    from gitstore.providers._signing import Signer, signed_commit
    from gitstore.records.canonical import canonicalize
    from gitstore.records.contracts import kind_of, stream_of

    if raw:
        entries = tuple(Entry(r["digest"], kind_of(r), r["scope"], stream_of(r, kind_of(r)), canonicalize(r))
                        for r in records)
        GitProvider(root, writer).append(Batch("shared", entries))
    else:
        GitProvider(root, writer).append(batch(*records, removals=removals))
    repo = pygit2.Repository(str(root))
    name = records_ref("shared", writer)
    made = repo[repo.references[name].target]
    header = parse_message(made.message)
    entries = [type("E", (), {"digest": d, "kind": k, "stream": s})() for d, k, s in header.lines]
    message = format_message(clock if clock is not None else header.clock, writer, "shared", entries,
                             header.removes, () if blind else seen if seen is not None else header.seen,
                             policy if key else None)
    if key is not None:
        commit = signed_commit(repo, Signer("ssh-keygen", str(key), False), made.author, message,
                               made.tree_id, made.parent_ids)
    else:
        commit = repo.create_commit(None, made.author, made.committer, message, made.tree_id, made.parent_ids)
    repo.references.create(name, commit, force=True)
    (state_dir(repo) / f"records-shared-{writer}.tips").unlink(missing_ok=True)  # a forger's clone (or a bare remote)
    return str(commit)
