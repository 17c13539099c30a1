"""Capture: agent sessions become a SessionEnvelope, a CaptureReceipt and an episode, stored
as one local append.

A harness hook (``capture_from_hook``), ``gitstore capture`` (``capture``) and a backfill of a
transcript file (``import_transcript``) each build a capture's records
(``gitstore.capture.normalize``: screened, bounded, pinned to scope, branch and commit, the
same whenever the same events are replayed) and append them.

Modes: ``summary`` (default: task, outcome, files touched, commands and test results),
``transcript`` (opt-in: bounded, redacted turns as well), ``hybrid`` (both).

A Claude Code session hands work to subagents, whose transcripts lie beside its own
(``Transcript.subagents``): a capture of the session, by hook or import, captures each of them
too, in the same append, as an episode of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitstore.config import asking_git_ignores, capture_mode
from gitstore.records.contracts import ready
from gitstore.errors import GitstoreError, InvalidInput, NotARepository, Refused
from gitstore.records.vocabulary import DEFAULT_CAPTURE_MODE
from gitstore.context import Context
from gitstore.capture import readahead
from gitstore.capture.hookinput import HookInput
from gitstore.capture.normalize import Capture, build, refuse_unignored, transcript_key

if TYPE_CHECKING:
    from gitstore.capture.transcripts import Transcript

RECALL_INDEX = Path("cache", "recall.sqlite")  # under the state folder: ``gitstore.deliver.index.path``


def capture_from_hook(harness: str, payload: dict[str, Any], cwd: str) -> Capture | None:
    """The hook entry point: capture into the repository around ``cwd`` if gitstore is set up."""
    hook = HookInput.from_payload(harness, payload, cwd)
    ctx = _opened(hook)
    if ctx is None:
        return None  # not a gitstore repository: nothing to do
    return capture(ctx, hook, capture_mode(ctx.workspace))


def _opened(hook: HookInput) -> Context | None:
    """The repository HOOK's session ran in; None where gitstore is not set up, so there is
    nothing to capture. A repository inside the project that init never set up gives way to the
    project around it (``_around``), whatever its own ``okf/.memory/`` holds: a vendored clone
    can commit one (a ``config.json``, a link in its place), and its refusal, kept for a retry
    that could never succeed, left a job in the project's inbox for every session that ended
    there. Any other refusal to open a clone init set up (a config.json that came with a
    commit, or that cannot be read, or gone) is raised, as every command raises
    it: the hook logs it and keeps the job for a retry, where it once dropped the session
    without a word. A refusal that is no rule of the store's is raised as one, so the log never
    blames the session for it. Each is marked ``set_up``: the clone's, not the session's, so the
    hook keeps the job without using up one of its attempts."""
    try:
        return Context.open(str(hook.cwd))
    except NotARepository:
        if not _set_up_before(hook.cwd):
            return _around(hook.cwd)
        # init ran in this clone (its git folder says so), and okf/.memory/ is gone since
        refused = Refused("gitstore was set up in this clone, and okf/.memory/config.json is gone (`git clean -x` "
                          "deletes it): `gitstore init` sets it up again")
    except Refused as exc:
        refused = exc
    except GitstoreError:
        refused = Refused("gitstore refuses this clone's set-up: `gitstore doctor` says why")
    if not _set_up_before(hook.cwd):  # its okf/.memory/ came with the repository (a vendored clone's commit)
        return _around(hook.cwd)
    refused.set_up = True  # type: ignore[attr-defined]  # read by the hook (``agent_hook._call_guarded``)
    raise refused from None


def _around(folder: Path) -> Context | None:
    """The repository gitstore is set up in around FOLDER, a repository of its own that it is
    not set up in (a submodule, a clone kept inside the project): the one whose inbox the hook
    spooled the job in (``hooklog.repository_dir``). A session that ended there (Claude Code
    names the folder its shell was left in) was dropped without a word. None where there is
    none."""
    from gitstore.capture.hooklog import repository_dir

    root = repository_dir(str(folder))
    if root is None:
        return None
    try:
        return Context.open(root)
    except NotARepository:
        return None


def _set_up_before(folder: Path) -> bool:
    """Whether ``gitstore init`` ran in the clone at or above FOLDER (its git folder keeps
    ``gitstore/``, which only init makes and ``gitstore purge`` removes)."""
    from gitstore.capture.hooklog import clone_state

    try:
        return clone_state(str(folder)) is not None
    except Exception:  # noqa: BLE001 - no repository gitstore can open: none set up
        return False


def capture_timed_out(harness: str, payload: dict[str, Any], cwd: str, seconds: float) -> Capture | None:
    """A hook's capture ran out of time (SECONDS): write its envelope and a degraded receipt
    naming the timeout (``capture-timeout``), without reading the transcript. The hook keeps the
    payload for a retry, which, capture being replay-invariant, writes the episode a capture in
    time would have."""
    hook = HookInput.from_payload(harness, payload, cwd)
    ctx = _opened(hook)
    if ctx is None:
        return None  # not a gitstore repository: nothing was to be captured
    refuse_unignored(ctx.workspace)
    result = build(ctx, hook, None, "capture-timeout", capture_mode(ctx.workspace))
    _append(ctx, result.records())
    return result


def capture(ctx: Context, hook: HookInput, mode: str = "summary", *, refuse_unread: bool = False) -> Capture:  # noqa: D401
    """Write the envelope, receipt, episode and events of one hook call, as one local append;
    then record any harness whose settings switch its hooks off (``capture.disabled``).

    REFUSE_UNREAD (``gitstore capture``, which a person runs): a transcript that could not be
    read, or a file that does not hold the session, stores nothing and raises ``Refused``
    naming why, as ``import transcript`` refuses it. A hook, which must never fail the agent,
    records a degraded receipt instead."""
    ignored = asking_git_ignores(ctx.workspace.root, ctx.workspace.state)  # git answers while
    ready("envelope", "episode", "event", "receipt")  # the validators the store uses compile
    refuse_unignored(ctx.workspace, ignored())
    reading = readahead.take(hook.transcript, hook.harness) or (
        *readahead.read(hook.transcript, hook.harness, hook.session), {})
    transcript, problem, scanned = reading
    if refuse_unread and transcript is None:
        raise _unread(hook, problem)
    result = build(ctx, hook, transcript, problem, mode, scanned)._replace(
        subagents=subagents(ctx, hook, transcript, mode))
    _append(ctx, result.records())
    from gitstore.capture import outcomes

    outcomes.record(ctx.workspace.state, hook.harness, result.envelope, result.receipt)
    from gitstore.capture.disabled import notice  # the harnesses' settings: only after the append

    home = Path.home()
    notice(ctx, home, ignored=True, found=readahead.switched_off(ctx.workspace.root, home))
    return result


def _unread(hook: HookInput, problem: str | None) -> Refused:
    """Why nothing of HOOK's session was captured, in one line: the reader's own refusal."""
    from gitstore._shown import one_line
    from gitstore.capture.transcripts import parse_transcript

    why = f"{problem or 'transcript-unreadable'}: {hook.transcript}"
    try:
        parse_transcript(hook.transcript or Path(), hook.harness, session=hook.session)
    except InvalidInput as exc:
        why = str(exc)
    return Refused(f"nothing captured: {one_line(why)} ({problem}); a hook records this session as a degraded "
                   "receipt; import it with `gitstore import transcript FILE` once it can be read")


def _append(ctx: Context, records: list[dict[str, Any]]) -> None:
    """One local append; recall's index, when it is current, stays current across it
    (``gitstore.deliver.carry``: a capture adds nothing its rows depend on). Where there is
    no index, nothing of delivery is imported."""
    if not (ctx.workspace.state / RECALL_INDEX).exists():
        ctx.store.append(records, namespace="local")
        return
    from gitstore.deliver import carry

    start = carry.before(str(ctx.workspace.root))
    ctx.store.append(records, namespace="local")
    carry.after(start, records)


def import_transcript(ctx: Context, path: Path, harness: str | None = None, mode: str = DEFAULT_CAPTURE_MODE,
                      session: str | None = None) -> Capture:
    """Backfill: capture a transcript file as if its session had just ended.

    A file that is not a transcript gitstore reads (empty, binary, another format, or one with
    no record it could read) is refused and nothing is stored: a person asked for this import
    and should hear that it did not happen. (A harness hook, which nobody watches, records what
    it could not read in a degraded receipt instead.) SESSION names the session of a file
    holding many (OpenCode's database).
    """
    from gitstore.capture.transcripts import parse_transcript

    refuse_unignored(ctx.workspace)
    path = Path(path)
    transcript = parse_transcript(path, harness, session=session)
    hook = HookInput(transcript.harness, "import", transcript.session, path, ctx.workspace.root, transcript.version)
    result = build(ctx, hook, transcript, None, mode)._replace(subagents=subagents(ctx, hook, transcript, mode))
    _append(ctx, result.records())
    return result


def subagents(ctx: Context, hook: HookInput, transcript: Transcript | None, mode: str) -> tuple[Capture, ...]:
    """The captures of the subagents' transcripts TRANSCRIPT lists, the session HOOK captures.

    Each is an episode of its own, screened, bounded and granted as the session's is, in the
    same mode. Its key is the one importing that transcript alone gives it (the parser's
    ``<session>/agent-<id>``, else its file's name, never the session's own id, which would make
    it the session's episode: a transcript whose lines name only the session is keyed
    ``<session>/agent-<name>``), so a hook and ``import transcript`` write the same episode
    whichever runs first. Its envelope names the hook's event and the session whose capture
    took it, the link a subagent's episode has to its session where its key names none. A
    transcript that cannot be read gets a degraded receipt, as a session's does, and stops no
    other.
    """
    if transcript is None:
        return ()
    return tuple(_subagent(ctx, hook._replace(transcript=Path(path)), mode) for path in transcript.subagents)


def _subagent(ctx: Context, hook: HookInput, mode: str) -> Capture:
    found, problem = readahead.read(hook.transcript, hook.harness)
    if found is not None and found.session is None:
        found = found._replace(session=transcript_key(hook))
    elif found is not None and found.session == hook.session:
        found = found._replace(session=_own_key(hook))
    return build(ctx, hook, found, problem, mode)


def _own_key(hook: HookInput) -> str:
    """The key of a subagent whose lines name only its session (HOOK's): ``<session>/agent-<name>``,
    never the session's own id, which would make the subagent's the session's episode."""
    stem = hook.transcript.stem if hook.transcript else "unknown"
    return f"{hook.session}/{stem if stem.startswith('agent-') else 'agent-' + stem}"
