"""Tokens hidden by an encoding the way tools print bytes (hex with separators, dumps, base32 in
either case, base64 wrapped short, compressed), and tokens cut over lines the way quotes,
replies, diffs and strings wrap them: each goes whole, and text that only looks alike stays."""

from __future__ import annotations

import base64
import bz2
import gzip
import shutil
import subprocess
import zlib

import pytest

from gitstore.safety import secrets
from gitstore.safety.scanner import default_scanner

SCANNER = default_scanner()
TOKEN = "ghp_" + "R8kLmN2pQ4sT6vX8zA1cE3gI5kM7oQ9sU2wY"
HEX = TOKEN.encode().hex()
ANTHROPIC = "sk-ant-api03-" + "Xb7Qm2Lp9Rt4Vw8Zc1Nf6Hj3Kd5Gs0Ya-Ue2Io7Pq4Mx9Bv1Cz6Lt3Rw8Ks5Jn0Fh2Dg7Sa4Qe9Wc1Tb6Ym3Nu8Vk5Xl0AbCdEf"


def _scan(text: str) -> str:
    return SCANNER.scan(text).text


def _pairs(sep: str, prefix: str = "") -> str:
    return sep.join(prefix + HEX[i : i + 2] for i in range(0, len(HEX), 2))


ENCODED = {
    "hex-spaces": _pairs(" "),
    "hex-colons": _pairs(":"),
    "hex-0x-list": _pairs(", ", "0x"),
    "hex-0x": "0x" + HEX,
    "hex-mixed-case": "".join(c.upper() if i % 3 == 0 else c for i, c in enumerate(HEX)),
    "hex-wrapped-32": "\n".join(HEX[i : i + 32] for i in range(0, len(HEX), 32)),
    "hex-groups-of-4": " ".join(HEX[i : i + 4] for i in range(0, len(HEX), 4)),
    "base32-lower": base64.b32encode(TOKEN.encode()).decode().lower(),
    "base32-unpadded": base64.b32encode(TOKEN.encode() + b"\n").decode().rstrip("="),
    "base32-lower-unpadded": base64.b32encode(TOKEN.encode() + b"\n").decode().lower().rstrip("="),
    "base32hex": base64.b32hexencode(TOKEN.encode()).decode(),
    "base64-wrapped-20": "\n".join(base64.b64encode(TOKEN.encode()).decode()[i : i + 20] for i in range(0, 56, 20)),
    "base64-zlib": base64.b64encode(zlib.compress(TOKEN.encode())).decode(),
    "base64-bzip2": base64.b64encode(bz2.compress(TOKEN.encode())).decode(),
    "base64-utf32": base64.b64encode(TOKEN.encode("utf-32")).decode(),
}


@pytest.mark.parametrize("encoding", sorted(ENCODED))
def test_a_token_hidden_by_an_encoding_is_redacted(encoding: str) -> None:
    encoded = ENCODED[encoding]
    for text in (f"the blob is {encoded} in the log", f"decode it:\n{encoded}\nThanks!"):
        scanned = _scan(text)
        assert "[REDACTED:github-token]" in scanned, scanned
        for line in encoded.splitlines():
            assert line not in scanned, scanned
    assert _scan(f"decode it:\n{encoded}\nThanks!").endswith("\nThanks!")


DUMPS = [["xxd"], ["xxd", "-u"], ["od", "-An", "-tx1"], ["od", "-tx1"], ["od", "-x"], ["od", "-An", "-tx2"],
         ["hexdump", "-C"], ["base64", "-w", "20"], ["base32"], ["basenc", "--base32hex"]]


@pytest.mark.parametrize("command", DUMPS, ids=" ".join)
def test_what_a_dump_prints_of_a_token_goes_whole(command: list[str]) -> None:
    """The dumps print the bytes as text too, sixteen a line (xxd, hexdump -C): those go with them."""
    if shutil.which(command[0]) is None:
        pytest.skip(f"{command[0]} is not installed")
    printed = subprocess.run(command, input=TOKEN.encode(), capture_output=True, check=True).stdout.decode()
    for text in (printed, f"$ {' '.join(command)} token.txt\n{printed}done\n"):
        scanned = _scan(text)
        assert "[REDACTED:github-token]" in scanned, scanned
        assert "ghp_R8kL" not in scanned and "mN2pQ4sT" not in scanned and "6vX8zA1c" not in scanned, scanned
        assert "7059" not in scanned.replace("[REDACTED:github-token]", ""), scanned
    assert _scan(f"$ cat t | {command[0]}\n{printed}done\n").endswith("\ndone\n")


@pytest.mark.parametrize("command", [["od", "-x"], ["od", "-An", "-tx2"]], ids=" ".join)
@pytest.mark.parametrize("line", [f"GITHUB_TOKEN={TOKEN}\n", f"GITHUB_TOKEN={TOKEN}\r\n"], ids=["lf", "crlf"])
def test_a_dump_of_16_bit_words_is_read_little_endian(command: list[str], line: str) -> None:
    """od -x prints two bytes a word, the second first: 4947 is "GI"."""
    printed = subprocess.run(command, input=line.encode(), capture_output=True, check=True).stdout.decode()
    scanned = _scan(f"$ {' '.join(command)} .env\n{printed}done\n")
    assert "[REDACTED:github-token]" in scanned and "4947 4854" not in scanned, scanned
    assert scanned.endswith("\ndone\n"), scanned


@pytest.mark.parametrize("command", [["xxd"], ["od", "-An", "-tx1"], ["od", "-x"], ["hexdump", "-C"]], ids=" ".join)
def test_a_dump_of_ordinary_bytes_stays(command: list[str]) -> None:
    if shutil.which(command[0]) is None:
        pytest.skip(f"{command[0]} is not installed")
    data = b"The retry loop backs off with jitter; tests cover the race.\x00\x01\x02"
    printed = subprocess.run(command, input=data, capture_output=True, check=True).stdout.decode()
    assert _scan(printed) == printed


@pytest.mark.parametrize("text", [
    "colours: ff 00 aa 12 34 56 78 9a bc de f0 11 22 33 44 55 66 77 88 99",
    "mac 00:1a:2b:3c:4d:5e:6f:70:81:92:a3:b4:c5:d6:e7:f8:09:1a",
    "bytes 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f",
    "sha 0x" + "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "a dead beef cafe face fade bead add bad bed abbe",
    " ".join(b"The retry loop backs off with jitter.".hex()[i : i + 2] for i in range(0, 74, 2)),
    "word\nlist\nhere\nShortLinesOfText\nThatAreNotBase64\nAtAllReally",
])
def test_hex_and_short_lines_that_hold_no_secret_stay(text: str) -> None:
    assert _scan(text) == text


A, B = TOKEN[:18], TOKEN[18:]


@pytest.mark.parametrize("text", [
    f"{A}\r{B}",  # a carriage return alone
    f"{A} \n{B}",  # a blank ending the line
    f"{A}\n    {B}",  # indentation
    f"{A}\n\t{B}",
    f'"{A}"\n"{B}"',  # quoted halves
    f'token = ("{A}"\n         "{B}")',  # Python's joined strings
    f'const t = "{A}" +\n  "{B}";',  # JavaScript's
    f"> {A}\n> {B}",  # a reply
    f"+{A}\n+{B}",  # a diff's added lines
    f'{{"text": "{A}\\n{B}"}}',  # a line break written in a JSON string
    f"{A}-\n{B}",  # a hyphen where the line wraps
    f"{A}\n\n\n\n{B}",  # three blank lines
    f"{A}<br>{B}",  # a line break in HTML
    f"{A}\u200b{B}",  # a zero-width space
    f"gh\np_{TOKEN[4:]}",  # cut inside its opening
    f"ghp\n_{TOKEN[4:]}",
    "\n".join(TOKEN[i : i + 8] for i in range(0, 40, 8)),  # five pieces
    "\n".join(TOKEN[i : i + 4] for i in range(0, 40, 4)),  # ten
])
def test_a_token_cut_however_a_text_wraps_goes_whole(text: str) -> None:
    scanned = _scan(text)
    assert "[REDACTED:github-token]" in scanned, scanned
    for piece in (TOKEN[4:8], TOKEN[14:18], TOKEN[18:22], TOKEN[-4:]):
        assert piece not in scanned, scanned


def test_a_key_whole_on_its_first_line_takes_the_lines_it_runs_on() -> None:
    """An Anthropic key has no fixed length: its first line alone is one already."""
    for text in (f"{ANTHROPIC[:60]}\n{ANTHROPIC[60:]}\nbye", f"{ANTHROPIC[:40]}\n{ANTHROPIC[40:80]}\n{ANTHROPIC[80:]}\nbye"):
        scanned = _scan(text)
        assert scanned == "[REDACTED:anthropic-key]\nbye", scanned


@pytest.mark.parametrize("text", [
    f"{TOKEN}\n+ConfigurationReaderFactoryBuilder",
    f'msg = ("{TOKEN[:12]}" +\n  "is the prefix we strip")',
    f"> {TOKEN}\n> Thanks, rotating it now",
    "gh\npages are served from the docs folder",
    "sk\n-learn is a library",
    f"{ANTHROPIC}\nNext line of prose",
])
def test_lines_after_a_token_or_its_opening_stay(text: str) -> None:
    last = text.rsplit("\n", 1)[1]
    assert last in _scan(text)


def test_compressed_blobs_share_one_budget() -> None:
    """Many blobs each inflating far cost a bounded reading; a token opening any of them is
    still found once the budget is spent."""
    bomb = base64.b64encode(gzip.compress(b"note: the build ran ok " * 4000, mtime=0)).decode()
    budget = secrets._Budget(bomb)
    whole = secrets._GZIP_TOTAL // secrets._GZIP_MAX
    read = [len(text) for _ in range(whole + 20) for _, text in secrets._other_readings(bomb, budget)]
    assert read == [secrets._GZIP_MAX] * whole + [secrets._GZIP_LEAST] * 20
    leak = base64.b64encode(gzip.compress(f"token {TOKEN} ".encode() + b"x" * 100000, mtime=0)).decode()
    scanned = _scan(f"see {bomb} and\n" * 20 + f"then {leak} end")
    assert leak not in scanned and "[REDACTED:github-token]" in scanned


def test_a_blob_inflating_far_leaves_the_next_its_own_reading() -> None:
    """A crash log's token kilobytes into it is found after a blob that inflated to the most."""
    big = base64.b64encode(gzip.compress(b"INFO request ok\n" * 5000, mtime=0)).decode()
    log = b"".join(b"2026-01-01T00:00:%02d INFO worker started job %d\n" % (i % 60, i) for i in range(60))
    leak = base64.b64encode(gzip.compress(log + f"GITHUB_TOKEN={TOKEN}\n".encode(), mtime=0)).decode()
    scanned = _scan(f"metrics dump:\n{big}\n\ncrash report:\n{leak}\n")
    assert leak not in scanned and "[REDACTED:github-token]" in scanned, scanned
    assert big in scanned
