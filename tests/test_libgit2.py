"""gitstore's programs import pygit2 without parsing the CA bundle or loading ``ssl``, and leave
the environment and ``sys.modules`` as they were (``gitstore._libgit2``). Each case runs in a
fresh interpreter: pygit2 is imported once per process."""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

CA = ssl.get_default_verify_paths()
needs_ca_folder = pytest.mark.skipif(CA.capath is None, reason="this machine has no CA folder")
needs_ca_file = pytest.mark.skipif(CA.cafile is None, reason="this machine has no CA bundle")
REPORT = textwrap.dedent("""
    import json, os, sys
    had_ssl = sys.modules.get("ssl")
    import ssl
    import pygit2
    print(json.dumps({"capath": ssl.get_default_verify_paths().capath, "file": pygit2.settings.ssl_cert_file, "folder": pygit2.settings.ssl_cert_dir,
                      "env": os.environ.get("SSL_CERT_FILE"), "loader": type(pygit2.__loader__).__name__,
                      "finders": [type(f).__name__ for f in sys.meta_path], "ssl_loaded": had_ssl is not None,
                      "ssl_kept": had_ssl is None or had_ssl is ssl, "ssl_real": hasattr(ssl, "SSLContext")}))
""")


def _env(**values: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
    env.update({k: v for k, v in values.items() if v is not None})
    return env


def _report(before: str, env: dict[str, str], cwd: Path | None = None) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", before + REPORT], env=env, cwd=cwd,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


@needs_ca_folder
@pytest.mark.parametrize("ca_file", [None, "/somewhere/ca.pem"])
def test_load_hands_libgit2_the_ca_folder_only_and_puts_the_environment_back(ca_file: str | None) -> None:
    found = _report("from gitstore._libgit2 import load; load()\n", _env(SSL_CERT_FILE=ca_file))
    assert found["file"] is None
    assert found["folder"] == found["capath"] is not None
    assert found["env"] == ca_file  # as it was, set or not
    assert found["loader"] == "SourceFileLoader"  # pygit2 keeps its own loader
    assert "_Finder" not in found["finders"]
    assert not found["ssl_loaded"] and found["ssl_real"]  # pygit2 got the stand-in; later imports the real one


@needs_ca_folder
def test_a_process_that_imported_ssl_first_keeps_that_module() -> None:
    found = _report("import ssl\nfrom gitstore._libgit2 import load; load()\n", _env())
    assert found["file"] is None and found["folder"] == found["capath"] is not None
    assert found["ssl_loaded"] and found["ssl_kept"] and found["ssl_real"]


@needs_ca_folder
def test_install_takes_effect_at_the_first_import_wherever_it_happens() -> None:
    found = _report("from gitstore._libgit2 import install; install()\nimport gitstore.providers.git\n", _env())
    assert found["file"] is None and found["folder"] == found["capath"] is not None
    assert "_Finder" not in found["finders"]


@needs_ca_file
def test_without_a_ca_folder_pygit2_gets_its_usual_settings(tmp_path: Path) -> None:
    """pygit2 cannot be imported with neither a CA file nor a folder: the file stays."""
    env = _env(SSL_CERT_FILE=CA.cafile, SSL_CERT_DIR=str(tmp_path / "none"))
    found = _report("from gitstore._libgit2 import load; load()\n", env)
    assert found["file"] == CA.cafile and found["folder"] is None


@needs_ca_file
def test_a_process_that_imported_pygit2_first_keeps_its_settings() -> None:
    found = _report("import pygit2\nfrom gitstore._libgit2 import load, install; install(); load()\n",
                    _env(SSL_CERT_FILE=CA.cafile))
    assert found["file"] == CA.cafile
    assert "_Finder" not in found["finders"]


@needs_ca_folder
def test_the_console_command_and_the_capture_worker_skip_the_bundle(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    cli = ("import atexit, sys\nfrom gitstore import cli\nsys.argv = ['gitstore', 'verify']\n"
           "atexit.register(lambda: print(__import__('json').dumps({'loaded': 'pygit2' in sys.modules,"
           " 'file': __import__('pygit2').settings.ssl_cert_file, 'env': __import__('os').environ.get('SSL_CERT_FILE')})))\n"
           "cli.run()\n")
    done = subprocess.run([sys.executable, "-c", cli], env=_env(SSL_CERT_FILE="/somewhere/ca.pem"), cwd=repo,
                          capture_output=True, text=True)
    assert json.loads(done.stdout.splitlines()[-1]) == {"loaded": True, "file": None, "env": "/somewhere/ca.pem"}
    worker = "from gitstore.capture.agent_hook import _load_pygit2; _load_pygit2()\n"
    found = _report(worker, _env(SSL_CERT_FILE="/somewhere/ca.pem"))
    assert found["file"] is None and found["env"] == "/somewhere/ca.pem"


def test_the_stand_in_answers_as_ssl_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gitstore._libgit2 import _stand_in

    folder, bundle = tmp_path / "certs", tmp_path / "ca.pem"
    folder.mkdir()
    bundle.write_text("")
    for file, capath in ((bundle, folder), (bundle, tmp_path / "none"), (os.devnull, folder), (tmp_path / "no.pem", folder)):
        monkeypatch.setenv("SSL_CERT_FILE", str(file))
        monkeypatch.setenv("SSL_CERT_DIR", str(capath))
        assert tuple(_stand_in(None).get_default_verify_paths()) == tuple(ssl.get_default_verify_paths())
    assert _stand_in(ssl).DefaultVerifyPaths._fields == ssl.DefaultVerifyPaths._fields
    # anything else is the real module's, imported or not; not what the import system asks of modules
    assert _stand_in(ssl).SSLContext is ssl.SSLContext
    assert _stand_in(None).PROTOCOL_TLS_CLIENT is ssl.PROTOCOL_TLS_CLIENT
    assert not hasattr(_stand_in(ssl), "__path__")
