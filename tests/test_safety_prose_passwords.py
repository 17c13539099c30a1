"""A password written in a sentence is redacted though it is short or typed by hand: a credential
word, a linking word ("is", "was set to", ":", "lautet"...) and one value of eight characters or
more holding a digit or a symbol. Words, sizes, paths, placeholders and names after the same
words are kept."""

from __future__ import annotations

import pytest

from gitstore.safety.scanner import default_scanner

SCANNER = default_scanner()

PASSWORD = "Zq8!rT2#pL9w"  # twelve characters, symbols: never judged random-looking
LONGER = "Xk9L2mQ7rT3yW1zPq7"  # eighteen: shorter than the random-looking twenty
MARK = "[REDACTED:prose-secret]"

IN_SENTENCES = {
    "is": (f"The staging DB password is {PASSWORD}, use it for the migration.",
           f"The staging DB password is {MARK}, use it for the migration."),
    "with-the": (f"Connected with the password {LONGER} from the vault.",
                 f"Connected with the password {MARK} from the vault."),
    "full-stop": (f"the staging admin password is {PASSWORD}.", f"the staging admin password is {MARK}."),
    "was-set-to": (f"the passphrase was set to {PASSWORD} yesterday", f"the passphrase was set to {MARK} yesterday"),
    "changed-to": (f"root password changed to {PASSWORD}", f"root password changed to {MARK}"),
    "is-now": (f"the token is now {LONGER}", f"the token is now {MARK}"),
    "is-colon": (f"The password is: {PASSWORD}", f"The password is: {MARK}"),
    "spaced-key-colon": (f"api key: {PASSWORD}", f"api key: {MARK}"),
    "code-span": (f"the secret is `{PASSWORD}`", f"the secret is `{MARK}`"),
    "quoted": (f'the password is "{PASSWORD}".', f'the password is "{MARK}".'),
    "parenthesis": (f"the password (prod) is {PASSWORD}", f"the password (prod) is {MARK}"),
    "for-whom": (f"the password for the staging db is {PASSWORD}", f"the password for the staging db is {MARK}"),
    "pwd": (f"pwd is {PASSWORD}", f"pwd is {MARK}"),
    "passwd": (f"the passwd was {PASSWORD}", f"the passwd was {MARK}"),
    "word-with-number": ("the wifi password is Winter2024", f"the wifi password is {MARK}"),
    "word-with-number-and-mark": ("the password is Summer2024! for now", f"the password is {MARK} for now"),
    "shouted": (f"PASSWORD IS {PASSWORD}", f"PASSWORD IS {MARK}"),
    "using": (f"log in using the admin password {PASSWORD} for now", f"log in using the admin password {MARK} for now"),
    "french": (f"Le mot de passe est {LONGER}", f"Le mot de passe est {MARK}"),
    "french-colon": (f"mot de passe : {PASSWORD}", f"mot de passe : {MARK}"),
    "german": (f"Das Passwort lautet {LONGER}", f"Das Passwort lautet {MARK}"),
    "german-ist": (f"das Kennwort ist {PASSWORD}", f"das Kennwort ist {MARK}"),
    "spanish": (f"la contraseña es {PASSWORD}", f"la contraseña es {MARK}"),
    "after-the-user": (f"username admin, password {PASSWORD}", f"username admin, password {MARK}"),
    "after-the-users-own": (f"The DB user is app and its password {PASSWORD}",
                            f"The DB user is app and its password {MARK}"),
    "login-then-password": (f"login: admin; password {PASSWORD}", f"login: admin; password {MARK}"),
    "user-with-password": (f"user bob with password {PASSWORD}", f"user bob with password {MARK}"),
    "creds-user-slash": (f"the staging creds are admin / {PASSWORD}", f"the staging creds are admin / {MARK}"),
    "credentials-user-slash": (f"the credentials are admin / {PASSWORD}", f"the credentials are admin / {MARK}"),
    # no credential word: a user, then the password after a slash, "with" or "pass"
    "login-slash": (f"the login is admin / {PASSWORD}", f"the login is admin / {MARK}"),
    "login-joined": (f"The login was admin/{PASSWORD} until Monday.", f"The login was admin/{MARK} until Monday."),
    "log-in-as-with": (f"log in as admin with {PASSWORD}", f"log in as admin with {MARK}"),
    "signed-in-as-using": (f"Signed in as the admin using `{PASSWORD}`.", f"Signed in as the admin using `{MARK}`."),
    "ssh-in-as": (f"ssh in as deploy with {LONGER}", f"ssh in as deploy with {MARK}"),
    "user-pass": (f"user root pass {PASSWORD}", f"user root pass {MARK}"),
    "user-password": (f"user root password {PASSWORD}", f"user root password {MARK}"),
    "login-pw": (f"login admin pw {PASSWORD}", f"login admin pw {MARK}"),
}


@pytest.mark.parametrize(("text", "expected"), IN_SENTENCES.values(), ids=list(IN_SENTENCES))
def test_a_password_in_a_sentence_is_redacted(text: str, expected: str) -> None:
    result = SCANNER.scan(text)
    assert not result.quarantined
    assert result.text == expected
    assert [(f.kind, f.count) for f in result.findings] == [("prose-secret", 1)]


def test_each_password_in_a_text_is_counted() -> None:
    text = f"The staging DB password is {PASSWORD}; the prod password is {LONGER}."
    result = SCANNER.scan(text)
    assert result.text == f"The staging DB password is {MARK}; the prod password is {MARK}."
    assert result.redactions == 2


def test_an_assignment_keeps_its_own_kind() -> None:
    """``password: value`` is an assignment's: the sentence rule adds no second redaction."""
    result = SCANNER.scan(f"password: {PASSWORD}")
    assert result.text == "password: [REDACTED:credential-assignment]"
    assert result.redactions == 1


ORDINARY = [
    "the password is stored in vault",
    "the token is required",
    "password is 8 characters long",
    "the password is at least 12 characters long",
    "the secret is to retry with jitter",
    "the secret is sha256:6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b of the file",
    "the token is <password>",
    "the password is <password>",
    "the password is ${DB_PASSWORD}",
    "the password is $DB_PASSWORD",
    "the password is %DB_PASSWORD%",
    "the password is ***",
    "the password is ********",
    "the password is changeme",
    "the password is changeme123",
    "the password is your-password-here",
    "the token is in ~/.config/gh/hosts.yml",
    "the token is ~/.config/gh/hosts.yml",
    "the secret is /etc/app/secret.env",
    "the password is config/db.yml",
    "the token is GITHUB_TOKEN",
    "the api key is settings.API_KEY",
    "the token is gpt-4-turbo-2024-04-09",
    "the secret is well-known",
    "the token is 1234567890",
    "the secret is 2024-01-05",
    "the token was 4096-bit",
    "the password is alice@example.com",
    "the secret is https://example.com/docs",
    "the password is password123",
    "the password is Welcome!",
    "the token is v2.3.1-rc1",
    "the secret is api.example.com",
    "if token is not None:",
    "the password field is required",
    "the token is expired, refresh it",
    "with the password manager open, copy it",
    "the password is: see the vault",
    "password: Optional[str] = None",
    "token = get_token(config)",
    "the tokens are counted by tiktoken-0.7",
    "Le mot de passe est stocké dans le coffre",
    "Das Passwort ist abgelaufen",
    "la contraseña es obligatoria",
    "username admin, password reset required",
    "the user is app and its password policy applies",
    "user bob with password hashing enabled",
    "the user is bob and the password field is empty",
    "creds: see the vault",
    "street creds matter",
    "the password is admin / guest for the demo",
    "log in as admin with your usual password",
    "admin / settings\nthe login is admin / settings\nthe login page is admin / settings",
    "login: api/v2/users\nlogin at /admin/users/list\nthe login route is /api/v1/login",
    "log in as admin with ~/.ssh/id_ed25519, or as root with $ROOT_PASSWORD or <password>",
    "logged in as bob with 2FA-enabled; sign in as bob with GitHub; logged in as bob with v2.3.1-rc1",
    "connecting as postgres using psql-16.2, connected as admin using https://db.acme.io/login",
    "log in as admin with admin@acme.io\nlog in as root with sudo -i\nthe login is admin / ********",
    "user root pass through to the proxy\nuser agent pass --verbose\nuser count pass 12345678",
    "user root passes validation in 3.2s\nuser_login PASSED",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_words_sizes_paths_and_placeholders_after_a_credential_word_are_kept(text: str) -> None:
    result = SCANNER.scan(text)
    assert result.findings == (), (text, result.findings)
    assert result.text == text
