"""Secrets printed by the commands that read them, and secrets hidden by an encoding: what the
scanner redacts, what it leaves alone, and what a capture stores of a session that ran them."""

from __future__ import annotations

import base64
import gzip
import re
import subprocess
from pathlib import Path

import pytest

from gitstore.capture.sessions import import_transcript
from gitstore.context import Context
from gitstore.safety.scanner import default_scanner

from .conftest import all_objects, shared
from .test_capture_screening import _HARNESSES
from .world import ready_repo

SECRET = "q8Zr3LpX0vT7wYbN2mK9sD4f"  # a password: no shape, no key, no credential word

# Each command reading a secret, and what it prints: the secret alone (but for ``.pgpass``).
PRINTERS = [
    ("aws secretsmanager get-secret-value --secret-id prod/db --query SecretString --output text", f"{SECRET}\n"),
    ("gcloud secrets versions access latest --secret=db-pass", f"{SECRET}\n"),
    ("az keyvault secret show --vault-name v --name db --query value -o tsv", f"{SECRET}\n"),
    ("vault kv get -field=password secret/db", f"{SECRET}\n"),
    ("kubectl get secret db -o jsonpath='{.data.password}' | base64 -d", f"{SECRET}\n"),
    ("security find-generic-password -s db -w", f"{SECRET}\n"),
    ("doppler secrets get DB_PASS --plain", f"{SECRET}\n"),
    ("pass show prod/db", f"{SECRET}\n"),
    ("cat ~/.pgpass", f"db.example.com:5432:prod:admin:{SECRET}\n"),
    ("op read op://vault/db/password", f"{SECRET}\n"),
    ("bw get password prod-db", f"{SECRET}\n"),
    ("lpass show --password prod-db", f"{SECRET}\n"),
    ("sops -d --extract '[\"api_key\"]' secrets.enc.yaml", f"{SECRET}\n"),
    ("Get-Secret -Name DbPass -AsPlainText", f"{SECRET}\n"),
    ("aws ssm get-parameter --name /prod/db --with-decryption --query Parameter.Value --output text", f"{SECRET}\n"),
    ("keyring get prod-db admin", f"{SECRET}\n"),
    ("gpg -d db-password.txt.gpg", f"{SECRET}\n"),
    ("secret-tool lookup service prod-db user admin", f"{SECRET}\n"),
]


def _scan(text: str, command: str = "") -> str:
    return default_scanner().scan(text, context=command).text


@pytest.mark.parametrize(("command", "output"), PRINTERS, ids=[c.split()[0] + "-" + c.split()[1] for c, _ in PRINTERS])
def test_a_secret_a_command_prints_alone_is_redacted_whatever_its_shape(command: str, output: str) -> None:
    """Read after the command that printed it (as capture reads a tool's output) or below it
    in one text (a terminal pasted in a comment), the secret goes; the rest stays."""
    for scanned in (_scan(output, command), _scan(f"$ {command}\n{output}$ ls\nREADME.md\n")):
        assert SECRET not in scanned and "[REDACTED:command-secret]" in scanned, scanned
    assert _scan(f"$ {command}\n{output}$ ls\nREADME.md\n").endswith("$ ls\nREADME.md\n")
    if command.startswith("cat"):
        assert _scan(output, command) == "db.example.com:5432:prod:admin:[REDACTED:command-secret]\n"


# The same commands spelled as people and agents write them: a path, variables or a wrapper
# before them, options before the subcommand, the JSON piped through jq, ``pass NAME``.
VARIANTS = [
    ("/usr/local/bin/aws secretsmanager get-secret-value --secret-id prod/db --query SecretString --output text", f"{SECRET}\n"),
    ("AWS_PROFILE=prod aws secretsmanager get-secret-value --secret-id prod/db --query SecretString --output text", f"{SECRET}\n"),
    ("env AWS_PROFILE=prod aws secretsmanager get-secret-value --secret-id db --query SecretString --output text", f"{SECRET}\n"),
    ("sudo -u deploy aws secretsmanager get-secret-value --secret-id db --query SecretString --output text", f"{SECRET}\n"),
    ("command aws secretsmanager get-secret-value --secret-id db --query SecretString --output text", f"{SECRET}\n"),
    ("time aws secretsmanager get-secret-value --secret-id db --query SecretString --output text", f"{SECRET}\n"),
    ("echo db | xargs -I{} aws secretsmanager get-secret-value --secret-id {} --query SecretString --output text", f"{SECRET}\n"),
    ("aws --profile prod --region us-east-1 secretsmanager get-secret-value --secret-id db --output=text --query SecretString", f"{SECRET}\n"),
    ("aws secretsmanager get-secret-value --secret-id db | jq -r .SecretString", f"{SECRET}\n"),
    ("aws secretsmanager get-secret-value --secret-id db --output table",
     f"-------------------------\n|   GetSecretValue     |\n+-------------+---------+\n|  SecretString  |  {SECRET}  |\n"),
    ("/usr/bin/gcloud secrets versions access latest --secret=db-pass", f"{SECRET}\n"),
    ("gcloud --project prod secrets versions access latest --secret=db-pass", f"{SECRET}\n"),
    ("az keyvault secret show --vault-name v --name db | jq -r .value", f"{SECRET}\n"),
    ("az keyvault secret show --vault-name v --name db -o yaml", f"id: https://v.vault.azure.net/secrets/db/1\nvalue: {SECRET}\n"),
    ("az keyvault secret show --vault-name v --name db -o table", f"Name    Value\n------  -----\ndb      {SECRET}\n"),
    ("VAULT_ADDR=https://vault:8200 vault kv get -field=password secret/db", f"{SECRET}\n"),
    ("vault kv get -format=json secret/db | jq -r .data.data.password", f"{SECRET}\n"),
    ("kubectl get secret db -o json | jq -r .data.password | base64 -d", f"{SECRET}\n"),
    ("kubectl get secret db --template={{.data.password}} | base64 -d", f"{SECRET}\n"),
    ("kubectl get secrets/db -o go-template='{{.data.password|base64decode}}'", f"{SECRET}\n"),
    ("kubectl --context prod get secret db -ojsonpath={.data.password} | base64 -d", f"{SECRET}\n"),
    ("/usr/bin/security find-generic-password -s db -w", f"{SECRET}\n"),
    ("doppler secrets get DB_PASS", f"┌─────────┬──────────────────────────┐\n│ DB_PASS │ {SECRET} │\n└─────────┴──────────────────────────┘\n"),
    ("pass prod/db", f"{SECRET}\n"),
    ("gopass show -o prod/db", f"{SECRET}\n"),
    ("gopass prod/db", f"{SECRET}\n"),
    ("gopass show prod/db", f"Secret: prod/db\n\n{SECRET}\n"),
    ("grep prod ~/.pgpass", f"db.example.com:5432:prod:admin:{SECRET}\n"),
    ("awk -F: '{print $5}' ~/.pgpass", f"{SECRET}\n"),
    ("cut -d: -f5 ~/.pgpass", f"{SECRET}\n"),
    ("cat ~/.pgpass | cut -d: -f5", f"{SECRET}\n"),
    ("Get-Secret -Name DbPass -Vault LocalStore -AsPlainText", f"{SECRET}\n"),
    ("get-secret DbPass -AsPlainText", f"{SECRET}\n"),
    ("aws ssm get-parameters-by-path --path /prod --with-decryption --query 'Parameters[].Value' --output text", f"{SECRET}\n"),
    ("aws --region eu-west-1 ssm get-parameters --names /prod/db --with-decryption | jq -r '.Parameters[0].Value'", f"{SECRET}\n"),
    ("python3 -m keyring get prod-db admin", f"{SECRET}\n"),
    ("gpg --decrypt db-password.txt.gpg", f"{SECRET}\n"),
    ("gpg --batch --quiet -qd db-password.txt.gpg", f"{SECRET}\n"),
    ("gpg -d db-password.txt.gpg",
     f'gpg: encrypted with 3072-bit RSA key, ID 0123456789ABCDEF, created 2024-01-01\n      "Ops <ops@example.com>"\n{SECRET}\n'),
    # Spellings as common: gpg's ``-o -`` is its standard output, keyring's words quoted or run
    # by a tool runner, a PowerShell parameter's prefix or its module's name, SSM's history, a
    # vault option's value as the next word.
    ("gpg -o - -d db-password.txt.gpg", f"{SECRET}\n"),
    ("gpg --quiet --decrypt --output - db-password.txt.gpg", f"{SECRET}\n"),
    ("keyring get 'github api' 'alice smith'", f"{SECRET}\n"),
    ("uvx keyring get prod-db admin", f"{SECRET}\n"),
    ("pipx run keyring get prod-db admin", f"{SECRET}\n"),
    ("pwsh -NoProfile -c 'Get-Secret -Name ProdDb -AsPlain'", f"{SECRET}\n"),
    ("Microsoft.PowerShell.SecretManagement\\Get-Secret -Name DbPass -AsPlainText", f"{SECRET}\n"),
    ("ConvertFrom-SecureString $s -AsPlainText", f"{SECRET}\n"),
    ("aws ssm get-parameter-history --name /prod/db --with-decryption --query 'Parameters[-1].Value' --output text",
     f"{SECRET}\n"),
    ("vault read -field password -format raw database/creds/app", f"{SECRET}\n"),
    ("vault kv get -version 3 -field password secret/db", f"{SECRET}\n"),
]


@pytest.mark.parametrize(("command", "output"), VARIANTS, ids=[c[:40] for c, _ in VARIANTS])
def test_a_secret_read_by_a_command_spelled_otherwise_is_redacted(command: str, output: str) -> None:
    for scanned in (_scan(output, command), _scan(f"$ {command}\n{output}$ ls\nREADME.md\n")):
        assert SECRET not in scanned and "[REDACTED:command-secret]" in scanned, scanned
    assert _scan(f"$ {command}\n{output}$ ls\nREADME.md\n").endswith("$ ls\nREADME.md\n")


# Options, words and spaces that a pattern could read in many ways, or read again from each
# place a command may stand: each is read once, so these take as long as any text their size.
TANGLES = [
    "It reads the secret:\naws" + " --ab" * 40 + "\n",
    "secret\ngcloud" + " --ab" * 40 + " secret\n",
    "secret\naz" + " --ab" * 40 + " keyvault\n",
    "secret\nkubectl" + " --ab -cd" * 40 + " get\n",
    "the password:\nsudo" + " -ab c" * 40 + " aws\n",
    "pass\n" + "(cat " * 5000 + "x\n",
    "pass\n" + "-x' " * 5000 + "\n",
    "pass\n" + 'a="a=" ' * 5000 + "\n",
    "cat ~/.pgpass\nh:1:d:u:{value}\n",
    "kubectl get secret db -o yaml\ndata:\n  k: {value}\n",
    "vault kv get secret/db\n--- ---\nk  {value}\n",
    "secret\nps c:\\" + "> " * 5000 + "\n",
    "secret\n" + "ps /a " * 5000 + "\n",
    "gpg -d a.gpg\n" + 'gpg: a\n  "b\n' * 2000 + "{value}\n",
    "keyring get a b\n{value}\n",
    "aws ssm get-parameter --name a --with-decryption\n  value: {value}\n",
    "kubectl get secret db -o yaml\ndata:" + " " * 10000 + "x\n",
]


@pytest.mark.parametrize("text", TANGLES, ids=range(len(TANGLES)))
def test_text_that_tangles_a_command_pattern_is_read_once(text: str) -> None:
    """Left alone but for the value a command printed (spaces inside it, 10,000 of them)."""
    value = "a" + " " * 10000 + "b"
    assert _scan(text.replace("{value}", value)) == text.replace("{value}", "[REDACTED:command-secret]")


AWS_JSON = """{
    "ARN": "arn:aws:secretsmanager:us-west-2:123456789012:secret:prod/db-a1b2c3",
    "Name": "prod/db",
    "SecretString": "%s",
    "VersionStages": ["AWSCURRENT"]
}
""" % SECRET
KUBE_YAML = f"""apiVersion: v1
data:
  host: ZGIuZXhhbXBsZS5jb20=
  dsn: {base64.b64encode(SECRET.encode()).decode()}
kind: Secret
metadata:
  name: db
type: Opaque
"""
KUBE_JSON = """{
    "apiVersion": "v1",
    "data": {
        "host": "ZGIuZXhhbXBsZS5jb20=",
        "dsn": "%s"
    },
    "kind": "Secret",
    "metadata": {"name": "db"}
}
""" % base64.b64encode(SECRET.encode()).decode()
VAULT_TABLE = f"""====== Secret Path ======
secret/data/db

======= Metadata =======
Key                Value
---                -----
version            3

====== Data ======
Key         Value
---         -----
api         {SECRET}
user        admin
"""
AZ_JSON = """{
  "attributes": {"enabled": true},
  "name": "db",
  "value": "%s"
}
""" % SECRET

SSM_JSON = """{
    "Parameters": [
        {
            "Name": "/prod/db",
            "Type": "SecureString",
            "Value": "%s",
            "Version": 3
        }
    ],
    "InvalidParameters": []
}
""" % SECRET
SSM_YAML = f"""Parameter:
  ARN: arn:aws:ssm:us-east-1:123456789012:parameter/prod/db
  Name: /prod/db
  Type: SecureString
  Value: {SECRET}
  Version: 3
"""
ENV_FILE = f"""# production
DB_HOST=db.internal

DB_PASSWORD={SECRET}
"""


@pytest.mark.parametrize(("command", "output", "kept"), [
    ("aws secretsmanager get-secret-value --secret-id prod/db", AWS_JSON, '"Name": "prod/db"'),
    ("kubectl get secret db -o yaml", KUBE_YAML, "  name: db\ntype: Opaque"),
    ("kubectl get secret db -o json", KUBE_JSON, '"kind": "Secret"'),
    ("vault kv get secret/db", VAULT_TABLE, "secret/data/db"),
    ("az keyvault secret show --vault-name v --name db", AZ_JSON, '"name": "db"'),
    ("aws ssm get-parameters --names /prod/db --with-decryption", SSM_JSON, '"Name": "/prod/db"'),
    ("aws ssm get-parameter --name /prod/db --with-decryption --output yaml", SSM_YAML, "  Name: /prod/db\n"),
], ids=["aws-json", "kubectl-yaml", "kubectl-json", "vault-table", "az-json", "ssm-json", "ssm-yaml"])
def test_a_secret_printed_among_fields_goes_and_the_fields_stay(command: str, output: str, kept: str) -> None:
    scanned = _scan(output, command)
    assert SECRET not in scanned and base64.b64encode(SECRET.encode()).decode() not in scanned, scanned
    assert kept in scanned, scanned


def test_a_decrypted_file_goes_whole_and_what_gpg_says_of_its_key_stays() -> None:
    """``gpg --decrypt`` prints the file: its blank lines are the file's, not the output's end."""
    header = 'gpg: encrypted with 3072-bit RSA key, ID 0123456789ABCDEF, created 2024-01-01\n      "Ops <ops@example.com>"\n'
    for scanned in (_scan(header + ENV_FILE, "gpg --decrypt prod.env.gpg"),
                    _scan(f"$ gpg --decrypt prod.env.gpg\n{header}{ENV_FILE}$ ls\nREADME.md\n")):
        assert SECRET not in scanned and "db.internal" not in scanned and header in scanned, scanned
    assert _scan(f"$ gpg --decrypt prod.env.gpg\n{header}{ENV_FILE}$ ls\nREADME.md\n").endswith("$ ls\nREADME.md\n")


@pytest.mark.parametrize("after", [
    "```\n\n## Rotating the deploy key\n\nOpen config/deploy.yaml and bump `key_version`.\n",
    "````\nThen run the release checklist.\n",
    "    ```\n\nThen run the release checklist.\n",
    "\n## Rotating the deploy key\n\nOpen config/deploy.yaml and bump `key_version`.\n",
    "\nThat shows your key works and the file is intact.\n",
])
def test_a_decrypted_file_shown_in_a_document_ends_where_the_document_goes_on(after: str) -> None:
    """The file ``gpg -d`` prints runs on over blank lines and ``#`` comments, but not past the
    fence that closes the example, the document's next heading or its prose."""
    text = f"Decrypt the sample file to check your key works:\n\n```\n$ gpg -d docs/sample.txt.gpg\n{SECRET}\n{after}"
    assert _scan(text) == text.replace(SECRET, "[REDACTED:command-secret]")


S2 = "Hv5nQ1wKe7RzT3yUa9PbLm6c"  # a second secret of the same file


@pytest.mark.parametrize(("command", "output"), [
    ("gpg -d ~/notes/recovery.txt.gpg", f"GitHub recovery codes for the main account.\n\nKeep these somewhere safe and never paste them anywhere.\n{SECRET}\n"),
    ("gpg --decrypt secrets.txt.gpg", f"db-password\n\n# stripe\n\n{SECRET}\n"),
    ("gpg -d ~/notes/prod.md.gpg", f"# Prod access\n\n```\nadmin / {SECRET}\n```\n"),
    ("gpg -d secrets.gpg", f"\nThe production database password is below, do not share.\n{SECRET}\n"),
    ("op read op://vault/item/notes", f"```\n{SECRET}\n"),
    ("gopass show -o prod/db", f"~~~\n{SECRET}\n"),
    ("pass show prod/db", f"{S2}\n```\nrecovery: {SECRET}\n"),
])
def test_a_terminal_output_runs_on_over_what_would_end_a_document_example(command: str, output: str) -> None:
    """A fence, a heading or a sentence end an output only in a document's code block: what a
    tool or a terminal prints is the command's, a decrypted Markdown file's whole."""
    for scanned in (_scan(output, command), _scan(f"$ {command}\n{output}")):
        assert SECRET not in scanned and S2 not in scanned, scanned


@pytest.mark.parametrize("between", ["\n", "\n\n", "\nOutput:\n\n", "\n\nIt prints:\n\n"])
def test_the_block_after_a_document_command_alone_in_its_block_is_its_output(between: str) -> None:
    for command in ("gpg -d breakglass.txt.gpg", "vault kv get -field=password secret/prod/db"):
        text = f"# Break-glass\n\n```\n$ {command}\n```{between}```\n{SECRET}\n```\n\nThen rotate it.\n"
        assert _scan(text) == text.replace(SECRET, "[REDACTED:command-secret]"), text


def test_a_document_example_keeps_the_blocks_after_one_with_its_output() -> None:
    text = "```\n$ gpg -d sample.gpg\nhello\n```\n\n```\n$ make deploy\nok\n```\n"
    assert _scan(text) == text.replace("\nhello", "\n[REDACTED:command-secret]")
    text = "```\n$ gpg -d sample.gpg\n```\n\nEdit the settings:\n\n```\nport: 8080\n```\n"
    assert _scan(text) == text


def test_an_indented_example_ends_where_the_document_leaves_the_block() -> None:
    text = "To read it run `gpg -d notes.gpg` and then:\n\n    gpg -d notes.gpg\n    hello\n\nNote: the key lives in the team vault\nSee the runbook\n"
    assert _scan(text) == text.replace("hello", "[REDACTED:command-secret]")


def test_a_decrypted_file_that_opens_with_a_comment_goes_whole() -> None:
    text = f"$ gpg --decrypt prod.env.gpg\n# Production settings\n\nDB_HOST=db.internal\nDB_PASSWORD={SECRET}\n\n# API\nAPI_URL=x\n"
    scanned = _scan(text)
    assert SECRET not in scanned and "db.internal" not in scanned and "production" not in scanned.lower(), scanned


def test_a_powershell_prompt_opens_a_command_and_ends_its_output() -> None:
    text = f"PS C:\\repo> Get-Secret -Name DbPass -AsPlainText\n{SECRET}\nPS C:\\repo> git status\nclean\n"
    assert _scan(text) == text.replace(SECRET, "[REDACTED:command-secret]")
    kept = f"PS C:\\repo> $s = Get-Secret -Name DbPass\nPS C:\\repo> ConvertFrom-SecureString $s -AsPlainText\n{SECRET}\n"
    assert _scan(kept) == kept.replace(SECRET, "[REDACTED:command-secret]")


@pytest.mark.parametrize("indent", ["    ", "        ", "\t"])
def test_an_indented_output_is_redacted_to_its_line_end(indent: str) -> None:
    """In an indented code block or a docstring, the redaction ends where the printed line
    ends: the line break and the next line stay."""
    text = f"Setup notes:\n\n{indent}$ pass show db/prod\n{indent}{SECRET}  \n{indent}$ psql -h db -U app\n{indent}psql (16.2)\n"
    assert _scan(text) == text.replace(SECRET, "[REDACTED:command-secret]")
    block = f"{indent}$ gcloud secrets versions access latest --secret=db\n{indent}{SECRET}\n\nThen restart it.\n"
    assert _scan(block) == block.replace(SECRET, "[REDACTED:command-secret]")
    fields = f"{indent}$ kubectl get secret db -o yaml\n{indent}data:\n{indent}  dsn: {SECRET}\n{indent}kind: Secret\n"
    assert _scan(fields) == fields.replace(SECRET, "[REDACTED:command-secret]")


@pytest.mark.parametrize("command", ["echo db | pass show prod/db", "true || pass show prod/db", "true  |  pass show prod/db"])
def test_a_command_after_a_pipe_on_its_line_is_read(command: str) -> None:
    """A ``|`` that opens a line is a table's, but one after a command is a pipe."""
    assert _scan(f"$ {command}\n{SECRET}\n") == f"$ {command}\n[REDACTED:command-secret]\n"


def test_what_a_failed_read_says_is_kept() -> None:
    error = ("An error occurred (ResourceNotFoundException) when calling the GetSecretValue operation: "
             "Secrets Manager can't find the specified secret.\n")
    command = "aws secretsmanager get-secret-value --secret-id nope --query SecretString --output text"
    assert _scan(error, command) == error
    assert _scan("bash: pass: command not found\n", "pass show prod/db") == "bash: pass: command not found\n"


@pytest.mark.parametrize("text", [
    "To read it, run `pass show prod/db`.\nThen paste it into the form.\n",
    "$ pass show prod/db > /tmp/x\n\nThe build passed.\n",
    "$ git log -1 --format=%H\n0d1d5f7e3a7c49b5f0d2a4e6b8c0d2e4f6a8b0c2\n",
    "$ kubectl get secrets\nNAME    TYPE     DATA   AGE\ndb      Opaque   2      3d\n",
    "$ sudo -u deploy make test\n42 passed\n",
    "$ time aws s3 ls\n2024-01-01 bucket\n",
    "$ pass ls\nPassword Store\n└── prod\n",
    "pass it on to the next reviewer\nthanks\n",
    " PASS  src/App.test.js\n PASS  lib/client.test.js\n\nTests: 2 passed\n",
    "    pass\n    return None\n",
    "$ grep -c host config/.pgpass.example\n3\n",
    # Prose and markdown that start with a command's name, capitalized, or a table's first cell.
    "show : bool\n    Pass show=True to print each migration step as it runs,\n    including the SQL.\n\nReturns it.\n",
    "Vault read access for the app is granted by this policy:\ndata:\n  path: kv/app/config\n  capabilities: read\n",
    "Pass prod/db\nto the next step.\n",
    "| Command | What it does |\n|---|---|\n| pass show email/work | prints the password for email/work |\n"
    "| pass ls | lists every entry in the store |\n| pass generate web/new 20 | makes a new password |\n",
    "  | gopass show prod/db | prints it |\n  | pass ls | lists them |\n",
    # A secret reader's command line that reads none: no decryption, no plain text, to a file.
    "$ aws ssm get-parameter --name /prod/db --query Parameter.Value --output text\nAQICAHhJ3k9Lm2Np4Qr6St8Uv0Wx\n",
    "$ Get-Secret -Name DbPass\nSystem.Security.SecureString\n",
    "$ gpg --list-keys\npub   rsa3072 2024-01-01 [SC]\n      0123456789ABCDEF0123456789ABCDEF01234567\n",
    "$ gpg -d -o notes.txt notes.txt.gpg\ngpg: encrypted with 3072-bit RSA key\n",
    "$ gpg --output notes.txt --decrypt notes.txt.gpg\ngpg: encrypted with 3072-bit RSA key\n",
    "keyring get returns None when no password is stored\nfor that service and user name.\n",
    "$ gpg -d --output=notes.txt notes.txt.gpg\ngpg: encrypted with 3072-bit RSA key\n",
    "PS C:\\> ConvertFrom-SecureString $s\n01000000d08c9ddf0115d1118c7a00c04fc297eb\n",
    "PS C:\\> Get-Secret -Name DbPass -AsPlainText:$false\nSystem.Security.SecureString\n",
    "PS C:\\> Get-Secret -Name DbPass -Vault Store\nSystem.Security.SecureString\n",
])
def test_text_that_only_names_a_command_is_left_alone(text: str) -> None:
    assert _scan(text) == text


VAULT_DATA = f"Key         Value\n---         -----\napi         {SECRET}\n"


@pytest.mark.parametrize("text", [
    "vault read access is granted per team, see the docs\ndata:\n  path: kv/app/config\n  capabilities: read\n",
    "vault read access is granted per team, see the docs\n" + VAULT_DATA,
    "vault kv get returns the latest version, for example:\n" + VAULT_DATA,
    "vault read policies stay with the platform team\n\ndata:\n  owner: platform-team-lead\n",
])
def test_prose_that_opens_with_a_command_s_words_in_lower_case_is_left_alone(text: str) -> None:
    """A sentence is no command line: it goes on in words no ``vault read`` takes."""
    assert _scan(text) == text


@pytest.mark.parametrize("text", [
    "```sh\nvault read secret/foo\n" + VAULT_DATA + "```\n",
    "$ vault read secret/foo\n" + VAULT_DATA,
    "$ vault read -format json secret/foo | jq .\n{\n  \"data\": {\n    \"api\": \"" + SECRET + "\"\n  }\n}\n",
    "$ vault read database/creds/app ttl=1h  # a lease\n" + VAULT_DATA,
    "$ bash -lc 'vault read -field=api secret/foo'\n" + SECRET + "\n",
])
def test_a_vault_read_command_line_is_read_where_its_prose_is_not(text: str) -> None:
    scanned = _scan(text)
    assert SECRET not in scanned and "[REDACTED:command-secret]" in scanned, scanned
    line = next(line for line in text.splitlines() if "vault" in line)
    output = text.split(line + "\n", 1)[1]
    assert SECRET not in _scan(output, line.removeprefix("$ "))  # a Bash tool call and its output


# --- encodings ----------------------------------------------------------------------------------

def _fake_github_token() -> str:
    """The GitHub token of the fake-leaks corpus."""
    text = shared("secrets", "fake-leaks", "github", "valid", "personal-access-token-env-var").read_text()
    found = re.search(r"ghp_[A-Za-z0-9]{36}", text)
    assert found is not None
    return found.group()


ENCODINGS = {
    "hex": lambda b: b.hex(),
    "hex-upper": lambda b: b.hex().upper(),
    "hex-wrapped": lambda b: "\n".join(b.hex()[i : i + 60] for i in range(0, len(b.hex()), 60)),
    "base32": lambda b: base64.b32encode(b).decode(),
    "base32-padded": lambda b: base64.b32encode(b + b"\n").decode(),
    "base64-utf16": lambda b: base64.b64encode(b.decode().encode("utf-16-le")).decode(),
    "base64-utf16-bom": lambda b: base64.b64encode(b.decode().encode("utf-16")).decode(),
    "base64-gzip": lambda b: base64.b64encode(gzip.compress(b, mtime=0)).decode(),
    "reversed": lambda b: b.decode()[::-1],
}


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_a_token_hidden_by_an_encoding_is_redacted(encoding: str) -> None:
    token = _fake_github_token()
    encoded = ENCODINGS[encoding](token.encode())
    for text in (f"CI fails with the deploy token; decode it: {encoded}\nThanks!", f"decode it: {encoded}\nthanks"):
        scanned = _scan(text)
        assert encoded not in scanned and "[REDACTED:github-token]" in scanned, scanned
    assert _scan(f"decode it: {encoded}\nThanks!").endswith("\nThanks!")


@pytest.mark.parametrize("text", [
    "fixed in 0d1d5f7e3a7c49b5f0d2a4e6b8c0d2e4f6a8b0c2 and e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "id 7c9e6679-7425-40de-944b-e07fc1f90ae7, digest sha256:" + "ab" * 32,
    "hex of prose: " + b"The retry loop backs off with jitter; tests cover it.".hex(),
    "base32 of prose: " + base64.b32encode(b"The retry loop backs off with jitter; tests cover it.").decode(),
    "gzip of prose: " + base64.b64encode(gzip.compress(b"The retry loop backs off with jitter.", mtime=0)).decode(),
    "MZXW6YTBOI======MZXW6YTBOI MZXW6YTBOIMZXW6YTBOIMZXW6YTBOIMZXW6YTBOIMZXW6YTBOI",
    "a_phg b_ohg release_tap_buhtig stuff_phg_more",
])
def test_hex_and_encoded_text_that_holds_no_secret_is_left_alone(text: str) -> None:
    assert _scan(text) == text


def test_a_compressed_blob_is_read_only_so_far() -> None:
    """A gzip bomb costs its bounded read, and a token past the bound is not looked for."""
    bomb = base64.b64encode(gzip.compress(b"a" * (1 << 22), mtime=0)).decode()
    assert _scan(f"blob {bomb} end") == f"blob {bomb} end"


# --- capture --------------------------------------------------------------------------------------

@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    return ready_repo(tmp_path / "widgets")


@pytest.mark.parametrize("harness", sorted(_HARNESSES))
@pytest.mark.parametrize("mode", ["transcript", "hybrid"])
def test_a_session_that_reads_secrets_stores_none_of_them(ctx: Context, tmp_path: Path, harness: str, mode: str) -> None:
    """A session whose agent reads secrets with secret managers' command lines: every secret
    they print is redacted before the output is stored (the stored event keeps the output
    without its command, where no later scan could tell what it is), and no object holds one."""
    calls = [(command, output.replace(SECRET, f"{SECRET[:-2]}{n:02}")) for n, (command, output) in enumerate(PRINTERS)]
    calls.append(("git status --short", " M src/retry.py\n"))
    result = import_transcript(ctx, _HARNESSES[harness](tmp_path, calls), harness=harness, mode=mode)
    tools = "\n".join(e["payload"].get("text") or "" for e in result.events if e["payload"]["role"] == "tool")
    assert SECRET[:-2] not in tools and tools.count("[REDACTED:command-secret]") == len(PRINTERS), tools
    assert "M src/retry.py" in tools
    subprocess.run(["git", "gc", "-q"], cwd=ctx.workspace.root, check=True)
    assert SECRET[:-2].encode() not in all_objects(ctx.workspace.root)


def test_what_a_turn_stores_is_what_reading_it_whole_finds(ctx: Context, tmp_path: Path) -> None:
    """Outputs are read each after its command, and the turn so screened is read once more
    whole: a secret whose credential word is in one output and value in the next is stored
    redacted, as a reader of the stored turn would have it shown."""
    calls = [("echo the deploy token is", "the deploy token is\n"),
             ("cat part2.txt", f"{SECRET}\n")]
    result = import_transcript(ctx, _HARNESSES["claude-code"](tmp_path, calls), harness="claude-code", mode="transcript")
    tools = "\n".join(e["payload"]["text"] for e in result.events if e["payload"]["role"] == "tool")
    assert SECRET not in tools, tools
    assert default_scanner().scan(tools).text == tools


# A line opening a fence that a command printed and never closed (``head`` cutting a README in
# a code block): no document's block, so no fence or sentence after it ends an output.
STRAYS = ["```", "```bash", "~~~", "````markdown"]
# Commands reading a secret, each with what it prints: what would end a document's example
# (the fence closing the stray one, a sentence after a blank line) before the secret.
STRAY_READS = [
    ("$ ", "gpg -d ~/notes/recovery.txt.gpg", "GitHub recovery codes.\n\nKeep these somewhere safe and never paste them anywhere.\n{SECRET}\n"),
    ("$ ", "gpg --decrypt notes.md.gpg", "{S2}\n{close}\n{SECRET}\n"),
    ("me@box:~$ ", "aws ssm get-parameter --name /prod/db --with-decryption --query Parameter.Value --output text", "{S2}\n{close}\n{SECRET}\n"),
    ("$ ", "secret-tool lookup service prod-db user admin", "{S2}\n{close}\n{SECRET}\n"),
    ("% ", "keyring get prod-db admin", "{S2}\n{close}\n{SECRET}\n"),
    ("PS C:\\> ", "Get-Secret -Name DbPass -AsPlainText", "{S2}\n{close}\n{SECRET}\n"),
]


@pytest.mark.parametrize("stray", STRAYS)
@pytest.mark.parametrize(("prompt", "command", "output"), STRAY_READS, ids=[c.split()[0] for _, c, _ in STRAY_READS])
def test_a_fence_a_terminal_printed_opens_no_document_block(stray: str, prompt: str, command: str, output: str) -> None:
    """A fence in what a terminal printed before a command is the terminal's: the command's
    output runs on over a fence or a sentence, as any terminal output does."""
    close = stray.rstrip("abcdefghijklmnopqrstuvwxyz")
    printed = output.format(SECRET=SECRET, S2=S2, close=close)
    terminal = f"{prompt}head -6 README.md\n# Widgets\n\nInstall it with:\n\n{stray}\n{prompt}{command}\n{printed}"
    for scanned in (_scan(terminal), _scan(terminal, "tmux capture-pane -p"),
                    _scan(f"hello\n{stray}\n{prompt}{command}\n{printed}", "gpg -d greeting.txt.gpg")):
        assert SECRET not in scanned and S2 not in scanned, scanned
    assert _scan(terminal).startswith(f"{prompt}head -6 README.md\n# Widgets\n\nInstall it with:\n\n{stray}\n")


def test_a_session_s_terminal_with_a_stray_fence_stores_no_secret(ctx: Context, tmp_path: Path) -> None:
    """A tool output holding a terminal's screen: the secret a command on it prints after a
    fence an earlier command left open is stored redacted."""
    screen = (f"$ head -3 docs/setup.md\nRun:\n\n```sh\n$ gpg -d ~/notes/recovery.txt.gpg\nGitHub recovery codes.\n\n"
              f"Keep these somewhere safe and never paste them anywhere.\n{SECRET}\n$ ")
    result = import_transcript(ctx, _HARNESSES["claude-code"](tmp_path, [("tmux capture-pane -p", screen)]),
                               harness="claude-code", mode="transcript")
    stored = "\n".join(e["payload"].get("text") or "" for e in result.events)
    assert SECRET not in stored and "$ head -3 docs/setup.md\nRun:\n\n```sh\n$ gpg -d" in stored, stored
    subprocess.run(["git", "gc", "-q"], cwd=ctx.workspace.root, check=True)
    assert SECRET.encode() not in all_objects(ctx.workspace.root)


# Prompts a terminal shows before a command, as common shells and their themes draw them.
PROMPTS = [
    "$ ", "me@box:~$ ", "[me@box widgets]$ ", "[root@box widgets]# ", "(venv) $ ", "(base) me@box:~/w$ ",
    "(venv) [me@box widgets]$ ", "user@host:~/dir $ ", "me@box ~ % ", "me@box widgets % ",
    "➜  widgets git:(main) ", "➜  widgets git:(main) ✗ ", "➜  widgets ", "❯ ", "λ ", "PS C:\\> ", "(venv) PS C:\\repo> ",
    "me@box ~/widgets> ", "me@box /srv/w> ", "C:\\repo>", "C:\\Program Files\\w> ", "╰─❯ ", "└─$ ",
    "[12:01:02] $ ", "[09:14] me@box:~/w$ ", "(base) (venv) $ ",
]
PROMPT_READS = [
    "gpg -d notes.gpg",
    "aws ssm get-parameter --name /prod/db --with-decryption --query Parameter.Value --output text",
    "secret-tool lookup service prod-db user admin",
    "keyring get prod-db admin",
]


@pytest.mark.parametrize("command", PROMPT_READS, ids=[c.split()[0] for c in PROMPT_READS])
@pytest.mark.parametrize("prompt", PROMPTS)
def test_a_command_at_any_common_prompt_is_read_and_the_next_prompt_ends_its_output(prompt: str, command: str) -> None:
    """Whatever prompt a terminal shows (Fedora's brackets, a virtualenv's name or two, zsh's,
    fish's, cmd.exe's, a theme's sign or clock, a two-line prompt's second line), the secret the command prints goes, and the next prompt, of the same shape,
    ends what it printed: the next command and its output stay."""
    text = f"{prompt}{command}\n{SECRET}\n{prompt}ls\nREADME.md\n"
    assert _scan(text) == text.replace(SECRET, "[REDACTED:command-secret]")
    stray = f"{prompt}head -3 README.md\n# Widgets\n\n```\n{prompt}{command}\n{S2}\n```\n{SECRET}\n"
    if not prompt.startswith(("➜", "❯", "λ", "╰", "└")):  # a sign alone does not make a text a terminal's
        assert SECRET not in _scan(stray) and S2 not in _scan(stray), _scan(stray)


@pytest.mark.parametrize("command", PROMPT_READS, ids=[c.split()[0] for c in PROMPT_READS])
def test_a_command_a_shell_traced_is_read_up_to_the_trace_s_next_command(command: str) -> None:
    """``set -x`` shows each command after a ``+`` (more for a nested one), its output after it."""
    text = f"$ bash -x deploy.sh\n+ {command}\n{SECRET}\n+ echo done\ndone\n"
    assert _scan(text) == text.replace(SECRET, "[REDACTED:command-secret]")
    nested = f"++ {command}\n{SECRET}\n+ export DB_PASSWORD\n"
    assert _scan(nested) == nested.replace(SECRET, "[REDACTED:command-secret]")


@pytest.mark.parametrize("command", PROMPT_READS, ids=[c.split()[0] for c in PROMPT_READS])
def test_a_substitution_a_shell_traced_loses_its_value_in_the_command_that_took_it(command: str) -> None:
    """``export PW=$(pass show db)`` under ``set -x``: the substitution is shown one ``+``
    deeper and prints nothing; the command after it, one level up, shows what it printed."""
    redacted = "[REDACTED:command-secret]"
    for took, hidden in ((f"+ export CONN={SECRET}", f"+ export CONN={redacted}"),
                         (f"+ CONN={SECRET}", f"+ CONN={redacted}"),
                         (f"+ curl -su admin:{SECRET} https://db.example.com", f"+ curl {redacted}")):
        text = f"$ bash -x deploy.sh\n++ {command}\n{took}\n+ echo done\ndone\n"
        assert _scan(text) == text.replace(took, hidden), _scan(text)
    two = f"++ {command}\n++ date +%s\n+ export CONN={SECRET}\n+ ls\n"
    assert _scan(two) == two.replace(SECRET, redacted)
    nested = f"+++ {command}\n++ echo {SECRET}\n+ X={SECRET}\n+ ls\nREADME.md\n"
    assert _scan(nested) == nested.replace(SECRET, redacted)
    plain = f"++ date +%s\n+ T={SECRET}\n+ ls\n"  # a substitution of nothing secret
    assert _scan(plain) == plain


def test_a_plus_line_ends_only_a_traced_command_s_output() -> None:
    """A decrypted file's Markdown list (``+ item``) is what ``gpg`` printed, not a trace."""
    text = f"$ gpg -d notes.md.gpg\n+ {S2}\n+ {SECRET}\n$ ls\nREADME.md\n"
    assert _scan(text) == "$ gpg -d notes.md.gpg\n[REDACTED:command-secret]\n[REDACTED:command-secret]\n$ ls\nREADME.md\n"


@pytest.mark.parametrize("text", [
    ">>> gpg -d notes.gpg\nhello\n",
    ">>> import keyring\n>>> keyring get prod-db admin\nhello\n",
    "(see below) $5 fee\n+ added a flag\n+ item\nhello\n",
    "+ added a flag to pass show prod/db\nhello\n",
    "❯ Click Settings, then run gpg -d notes.gpg to read it.\nhello\n",
    "Settings ❯ Privacy\nhello\n",
])
def test_what_only_looks_like_a_prompt_starts_no_command(text: str) -> None:
    """Python's ``>>>`` is no shell's; a dollar amount, a list's ``+``, a sign in prose neither."""
    assert _scan(text) == text


@pytest.mark.parametrize("opening", [
    "+ Install the key first.", "❯ Next steps", "(see below) $5 fee", "λ calculus, briefly", "me@example.com 50 % off",
])
def test_a_line_that_only_looks_like_a_prompt_leaves_a_document_a_document(opening: str) -> None:
    """A document's example ends at its block's fence after a line that opens like a prompt
    but is prose, a list item or a price."""
    text = f"{opening}\n\n```\n$ gpg -d sample.gpg\nhello\n```\n\nThe rest of this page explains how the keys rotate.\nkept\n"
    assert _scan(text) == text.replace("hello", "[REDACTED:command-secret]")


# Lines a secret's output may hold that open like a prompt of another shape than the one the
# command was shown at: a .env's address and comment, a note, a list's sign.
LOOKALIKES = [
    "ADMIN_EMAIL=ops@corp.example # on-call owner", "ops@corp.example # on-call owner",
    "DEPLOY_REPO=git@github.com:org/app.git # deploy key below", "backup@db1 nightly % full",
    "(optional) $ cost per month", "(legacy) # keep", "(old) pw$ below", "❯ next value", "λ calculus notes",
    "➜ see below", "+ second key follows", "++ more",
]
LOOKALIKE_READS = ["gpg -d secrets.env.gpg", "pass show prod/db", "sops -d --extract '[\"x\"]' s.yaml"]


@pytest.mark.parametrize("command", LOOKALIKE_READS, ids=[c.split()[0] for c in LOOKALIKE_READS])
@pytest.mark.parametrize("line", LOOKALIKES)
def test_a_line_of_a_secret_s_output_that_looks_like_another_prompt_does_not_end_it(line: str, command: str) -> None:
    """A tool's output holds no prompt: nothing but a blank line, the bounds or its end ends
    what the command it answers printed. In a terminal's text only a plain prompt or one of the
    shape the command was shown at does, so the secret after such a line goes too."""
    body = f"{S2}\n{line}\n{SECRET}\n"
    prompts = ["$ ", "me@box:~$ "] + ([] if line.startswith("+") else ["+ "])
    for scanned in (_scan(body, command), *(_scan(f"{prompt}{command}\n{body}") for prompt in prompts)):
        assert SECRET not in scanned and S2 not in scanned, scanned


@pytest.mark.parametrize("prompt", ["[me@box w]$ ", "me@box ~ % ", "(venv) $ ", "❯ ", "λ ", "➜  w git:(main) "])
def test_the_prompt_a_command_was_shown_at_still_ends_its_output(prompt: str) -> None:
    """The next prompt of the command's own shape ends what it printed, a plain one too."""
    for after in (prompt, "$ "):
        text = f"{prompt}pass show prod/db\n{SECRET}\n{after}ls\nREADME.md\n"
        assert _scan(text) == text.replace(SECRET, "[REDACTED:command-secret]")


def test_a_decrypted_env_file_s_address_line_leaves_no_secret_stored(ctx: Context, tmp_path: Path) -> None:
    """What ``gpg -d .env.gpg`` printed in a session, an address line with a comment among its
    values, is stored redacted from its first value to its last."""
    printed = (f"gpg: encrypted with 3072-bit RSA key, ID 1A2B3C4D5E6F7A8B, created 2026-01-01\n"
               f"      \"Ops <ops@corp.example>\"\nAPP_ENV=production\nADMIN_EMAIL=ops@corp.example # on-call owner\n"
               f"UPSTREAM_TOKEN_X={SECRET}\nBACKUP_PASSPHRASE_Q={S2}\n")
    result = import_transcript(ctx, _HARNESSES["claude-code"](tmp_path, [("gpg -d .env.production.gpg", printed)]),
                               harness="claude-code", mode="transcript")
    stored = "\n".join(e["payload"].get("text") or "" for e in result.events)
    assert SECRET not in stored and S2 not in stored, stored
    subprocess.run(["git", "gc", "-q"], cwd=ctx.workspace.root, check=True)
    assert SECRET.encode() not in all_objects(ctx.workspace.root) and S2.encode() not in all_objects(ctx.workspace.root)


DOC_EXAMPLE = ("\n```sh\ngpg -d notes.txt.gpg\n```\n\n## Rotating keys\n\n"
               "Rotate the signing key every ninety days and tell the on-call team.\n"
               "Keep the old key around for one week so clients can catch up.\n")


@pytest.mark.parametrize("opening", [
    "Install it:\n\n    $ pip install widgets\n", "(USD) $ 20 per seat, billed monthly.\n",
    "[note]$ figures below are estimates.\n", "alice@corp.example # primary owner\n",
    "alice@corp.example owns 40 % of the reviews.\n",
])
def test_a_document_s_prompt_like_line_leaves_its_later_examples_in_their_blocks(opening: str) -> None:
    """An install step shown at a prompt in an indented block, a price, a note or an address
    with its comment is the document's: a later fenced example ends at its fence, and the
    heading and prose after it are kept."""
    text = f"# Widgets\n\n{opening}" + DOC_EXAMPLE
    assert _scan(text) == text


@pytest.mark.parametrize("prompt", ["❯ ", "➜  widgets ", "λ ", "+ ", "(venv) ❯ "])
def test_a_fence_printed_after_a_theme_s_sign_or_a_trace_opens_no_document_block(prompt: str) -> None:
    """A command given a file after a theme's sign or a trace's ``+`` is a terminal's: the
    fence ``head`` printed then opens no block, so a later decrypted file runs over its fences."""
    text = (f"{prompt}head -4 README.md\n# widgets\n\n```sh\nmake build\n"
            f"{prompt}gpg -d runbook.md.gpg\n# Prod runbook\n\n```\nssh ops@db1\n```\n{SECRET}\n")
    assert SECRET not in _scan(text), _scan(text)
