"""Random-looking strings written in prose next to a credential word are redacted, however the
sentence runs; words, names, ids, hashes and examples next to the same words are kept."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gitstore.safety.scanner import default_scanner

SCANNER = default_scanner()

AWS = "BVO775LUpX6I8g1pX0ye5uKtHR7UgCD/AiqWOuCN"  # 40 characters, the shape of an AWS secret key
OTHER = "rnZumQPhBUbWy+ZuK2XKVl3wywIqjU8xmrXUjADB"
URLSAFE = "tXGzc2sutF2Y6Ay3t5rHvHbPdKy-lqPU"
HEX = "95b4237ca84df1a0f7ee258d69697eea9a8c43fc"

IN_PROSE = {
    "held-back": (f"the secret is {AWS}", AWS),
    "aws-context": (f"For the AWS account, the secret access key is {AWS}.", AWS),
    "shouted": (f"SECRET IS {AWS}", AWS),
    "secret-key": (f"use secret key {OTHER} for staging", OTHER),
    "password-was": (f"the password was changed to {URLSAFE} yesterday", URLSAFE),
    "token-here": (f"here's the token: {URLSAFE}", URLSAFE),
    "api-key-of": (f"the API key of the bot is {OTHER}", OTHER),
    "hex-token": (f"my token is {HEX}", HEX),
    "credentials": (f"credentials -> {OTHER}", OTHER),
    "line-break": (f"Here is the secret:\n\n{AWS}\n", AWS),
    "code-span": (f"the secret is `{AWS}`", AWS),
    "bold": (f"**secret**: **{AWS}**", AWS),
    "quoted": (f'the secret is "{AWS}"', AWS),
    "blockquote": (f"> secret is {AWS}", AWS),
    "fullwidth-colon": (f"secret\uff1a{AWS}", AWS),
    "nbsp": (f"the secret\u00a0is\u00a0{AWS}", AWS),
    "cyrillic-word": (f"the \u0455ecret is {AWS}", AWS),
    "after-value": (f"{AWS} is the secret", AWS),
    "parenthesis": (f"the secret (prod) is {AWS}", AWS),
    "altered-example": ("the secret is wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEYxx", "bPxRfiCYz"),
    "assignment-form": (f"aws_secret_access_key = {AWS}", AWS),
}


@pytest.mark.parametrize(("text", "material"), IN_PROSE.values(), ids=list(IN_PROSE))
def test_secrets_in_prose_are_redacted(text: str, material: str) -> None:
    result = SCANNER.scan(text)
    assert not result.quarantined
    assert result.redactions >= 1, text
    assert material not in result.text


def test_an_aws_shaped_secret_is_named_as_one() -> None:
    result = SCANNER.scan(f"For the AWS account, the secret access key is {AWS}.")
    assert result.text == "For the AWS account, the secret access key is [REDACTED:aws-secret-key]."
    other = SCANNER.scan(f"the password was changed to {URLSAFE} yesterday")
    assert other.text == "the password was changed to [REDACTED:prose-secret] yesterday"


ORDINARY = [
    "the secret is to run the tests twice",
    "The secret sauce is the Lamport clock in src/gitstore/providers/git.py.",
    "token counts for gpt-4-turbo-2024-04-09 are in the report",
    "the token is stored in GITHUB_TOKEN and read by the workflow",
    "the password is in 1Password under Engineering/Staging",
    "the secret is AKIAIOSFODNN7EXAMPLE, the AWS documentation example",
    "the secret is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY (the AWS docs example)",
    "the token is abcdefghijklmnopqrstuvwxyz012345",
    "the token is xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    f"commit {HEX} rotated the secret",
    "secret rotation landed in 3f9a8b7c; the key id is 7c1d2e3f-4a5b-6c7d-8e9f-0a1b2c3d4e5f",
    '{"input_tokens": 1234, "id": "msg_01XFDUDYJgAACzvnptvVoYEL"}',
    "see docs/secrets/rotation.md and src/gitstore/safety/secrets.py",
    "the tokenizer splits camelCaseIdentifiersLikeThisOneHere into pieces",
    "password reset emails now link to https://example.com/reset?id=8f2a",
    "secret: ${{ secrets.DEPLOY_KEY }}",
    "the secret is sha256:6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b of the file",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_words_names_and_ids_next_to_credential_words_are_kept(text: str) -> None:
    result = SCANNER.scan(text)
    assert result.findings == (), (text, result.findings)
    assert result.text == text


# API keys in their vendors' shapes, standing alone in a sentence (prefixes apart so that no
# scanner takes this file for a leak).
_OPENAI_PROJECT = "sk-" + "proj-" + (
    "PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmihA-2O76UMFxFkM-R5Kjp1vRt_1fjORS-6ilI8T3BlbkFJihN5KXSc7Tvo"
    "-hBKqFYY-kv5ZJr3J1TWDtkwtDDb_xHKas1VOqg6YYZYn9ZhyiA4uoRgnatmUd"
)
API_KEYS = {
    "openai-project": (_OPENAI_PROJECT, "openai-key"),
    "openai-legacy": ("sk-" + "e3nNyjOq9wMxEhh2FDEET3BlbkFJtfjgVvVqE1SkHbn88Hxj", "openai-key"),
    "anthropic": (
        "sk-" + "ant-api03-dMlHUvTCQCyEZDz-TddJ8HyS5SUkCnD8zRA9a9SkpXz9w3QlY7Zkuvqdt7s8Stqcbnr3yBdGBLEPH1qhT61qtc"
        "4xatws8AA",
        "anthropic-key",
    ),
    "gitlab": ("gl" + "pat-phP9nhFyJfm5di4PzJ59", "gitlab-token"),
    "stripe-live": ("sk_" + "live_G8pSH4487q7J58m1CiAhzCue", "stripe-key"),
    "stripe-restricted": ("rk_" + "live_G8pSH4487q7J58m1CiAhzCue", "stripe-key"),
    "stripe-test": ("sk_" + "test_QpBenQtYh5Xj8TPQxjq4i9DoV8gz4FkQ1okTBGzvAmwufUxbvJDCTbyvHNsG9eh6Yo4gf", "stripe-key"),
    "npm": ("npm_" + "SlB5er8bOfZqfM2oeq3hDavJA76rNicHTp8h", "npm-token"),
    "google": ("AI" + "zauHgxzNNAL5wIScGebcy8F5n3-YNBDRzrZSg", "google-api-key"),
    "google-oauth": ("ya" + "29.a0AfB_byC7xK2mQ9pL4vR8sT1uW3yZ6bN0cD5eF7gH-Jk2Lm", "google-oauth-token"),
    "huggingface": ("hf" + "_NqVwYSVPHbDXpPdkhxEpyIgKpaUnArlXyk", "huggingface-token"),
    "huggingface-organisation": ("api_org" + "_NqVwYSVPHbDXpPdkhxEpyIgKpaUnArlXyk", "huggingface-token"),
    "sendgrid": ("SG" + ".jr4qqaaABvvLOzAxzXMcU1.vsHiQMaRiNTN9Ox98whGcTZc1UWb5fxzpF7STG7nVLe", "sendgrid-key"),
    "pypi": ("pypi" + "-AgEIcHlwaS5vcmcAbeuEchsVEoR7TJYHSDATOCN1D61-k7U4O5Zi-czrwcK_tmoYgj7LZDwTkEN", "pypi-token"),
    "vault-service": ("hvs" + ".NvOX8R4jI8so-XWbHlKif5hGu-9-fh8k7D5GkbhQW3ShM5Nd3XbSXasGF-QPFO_OaTCRhwnZQqQmOR69pYamt7uzPVZD",
                      "vault-token"),
    "terraform": ("zzg78dc6atr607" + ".atlasv1.lmqco4xf2sbioriwfvtnmyk2rb9coeqxg1d8t2lrnow8hrqo7vy1vetmcuqga7ui",
                  "terraform-token"),
    "stripe-webhook": ("whsec" + "_JPHOhHUDLk1TRX6vD3MKQ9AbrviWrwld", "stripe-key"),
    "shopify": ("shpat" + "_e632862e57a51bd7d5b45ffee5d2d8e7", "shopify-token"),
    "shopify-secret": ("shpss" + "_e632862e57a51bd7d5b45ffee5d2d8e7", "shopify-token"),
    "digitalocean": ("dop" + "_v1_0eac510ee0aee8ceec35aefae2675c3caae858d39785894e74f376cd79dfcf7a", "digitalocean-token"),
    "linear": ("lin" + "_api_ZywvyvQvgXiFo9RVoKQ0elSHStqnpFqF2l1p1ZF7", "linear-key"),
    "doppler": ("dp" + ".st.prd.xk4HPQn87J2IMXOYTvNhZMcqXdocw2zvHsLOL6uuxAP", "doppler-token"),
    "databricks": ("dapi" + "c0f7d25d43121cdb46b241b81e040ef7", "databricks-token"),
    "grafana-service-account": ("glsa" + "_SjRkGNypYUoT987B2vPZFdhXZIlz772K_9a384078", "grafana-token"),
    "grafana-cloud": ("glc" + "_4sYKjWCg/SvwzonLVxEqL3r9FcreV2k9QvUh6h+QvEZU4YUWisJEpmiBZAOj", "grafana-token"),
    "age": ("AGE-SECRET" + "-KEY-1MKDZCVM6PPQF9X75T6AZ8XCFPGLJNN5HA0YFNC4LM3TNUJWQHCWEHSYQVY", "age-secret-key"),
    "postman": ("PMAK" + "-b1979005441a6a2841705386-6d94740a140842a46b3c52157856a511d3", "postman-key"),
    "telegram": ("2689971973" + ":AA8ODDWrMGpMJE_U-S296-5zBQ4TGLQjV20", "telegram-bot-token"),
    "mailgun": ("key" + "-e84e240cb1e78fd6ea77246aac15f3fa", "mailgun-key"),
    "twilio": ("SK" + "2b9f4c1e7a3d5f8b0c6e2a4d9f1b3c5e", "twilio-key"),
    "atlassian": ("ATATT3" + "w6dbDqI0EuHjxq1sndWOEcb6gf3=6q_TJMIjjeGkEieIiaG4xD9IvTlX=rDCwGSZHmZ_NJiUHm33xAZuAqKQ2N=c7ZD"
                  "Ic6bb61i_Fawhs57AoUc9yBgTB2yhhC2rqB3zJE4=rkdXaeGLymk-Rr2U=ep_XCx-6=-kDs_5EzTrwPm__6DWY9m-LbWpQR",
                  "atlassian-token"),
    "mapbox": ("sk" + ".eyJ1IjoiYWNtZSIsImEiOiJjbDd4ViiSarRRfiV22huY9jJBKMsfFI3O1AEVIIcc4XiqjtkJL7OWCElMFMwGH"
               ".w7Bh76nUF6iojZJmd4WSTh", "mapbox-token"),
    # cloud providers, CI/CD and package registries, AI providers, payment, chat and mail, databases
    "aws-bearer": ("AB" + "IAJGJJVTTFBFUJOAMZ", "aws-access-key"),
    "aws-context": ("AC" + "CA3INNPY67QZIRSQDG", "aws-access-key"),
    "aws-bedrock": ("AB" + (
        "SKnvmdCUpbWYiuk/xaP+PWtlhGFQktNjYKqqWp9f7wPtewsgYqvBJQTdJV1tX5heQwepFLG8Z/ZuXg8EckArd0UFSPwmQfTI"
        "GORHPjNXhgjtOmj4n0iX0R7M/nnoTNjUVurMg3="),
        "aws-bedrock-key"),
    "aws-bedrock-short": ("bedrock-api-key-" + (
        "YmVkcm9jay5hbWF6b25hd3MuY29tP8m9FYe6ibbzCpOFP5c63IUGE2BGe92Q0Sn1fXkmDffvWOHlwl3aDrOopDBcb/fEB9ez"
        "YfV6xe3NjIjyVAAtf+sXrYoRZfbW7tLMT6RR9ZyxLDLTylkEQLCk&Version=1"),
        "aws-bedrock-key"),
    "azure-client-secret": ("lky8Q" + "~jL-D_FX3viwWKqNUtYG~zOGlXIjlVm0z5c", "azure-client-secret"),
    "alibaba": ("LT" + "AI6cx1RDgOvpJUGql7qbK6", "alibaba-key"),
    "cloudflare-origin-ca": ("v1.0" + (
        "-17545c62f3d5c10acc50bd9d-406394bd5670fdbc9d878734db1ab666dd3643314fd467ceb1b75cee9a5af54a4724ea"
        "e7fe68e67ac9bf18dec0fc201e43fd7be567202f9675ebfc99a584c97566da2961e3572a5661"),
        "cloudflare-key"),
    "heroku": ("HRKU" + "-AAgOBjl_uD6g5Twsrx5lT0BVGxWP5bZczrDHUWQS_0o9wnOh4iM0Mk8KsXm1", "heroku-token"),
    "flyio": ("fm2" + (
        "_NWZ/H34xGqazCIMSe/LWGzRBkSs5yzQMl542k/mAtbkP8u73C629fXkQRe74AWAxOJPsHocb8ymEB0BwSsXgMq3rFrD9nzA"
        "WNn0NzpRbMcr81SNGU4fEhFNJhs+Q0wkpw5VWfQhpbB4AvL7aKUPTe1AxK4pW2lhn6HvRI15z7PT/a4c2Ss7c="),
        "flyio-token"),
    "openshift": ("sha256" + "~HKXJgWJVuTCedae_AorPLnN9nNRBX1TbBIWpBH1EFaW", "openshift-token"),
    "dynatrace": ("dt0c01" + (
        ".0OYSRRLA76IZJWHISKKVGSEN.4BNT91Q9N269119EKUMF02BJX54RFKREK7OUNDBTRUML7WQMO575WCTD0UWKIJQZ"),
        "dynatrace-token"),
    "1password-secret-key": ("A3" + "-KQHB0W-TU7JAC-0S4IL-GUEC1-K5IJ6-GX8MJ", "1password-key"),
    "docker": ("dckr" + "_pat_PS9NucsM8ayv64tZzKBKklaAlS8", "docker-token"),
    "buildkite": ("bkua" + "_4939bfcb9c1964e59c9019b5d696d8aa072b505a", "buildkite-token"),
    "circleci": ("CCIPAT" + "_P4l913sSi7xaWTjess56Pd_827fd157014b408e4bf38e3739d98da4d2f410cd", "circleci-token"),
    "pulumi": ("pul" + "-677ed9dc77f2473bd88d584fc7ec9382ac474aaa", "pulumi-token"),
    "sonarqube": ("squ" + "_afb56fdf393a450f141a85ff37ea387f7578af13", "sonar-token"),
    "sentry": ("sntryu" + "_aa2cb16208f8cce6b274eed36d0c09e47ea7437cfdfe052a3fa93acf1fd3de86", "sentry-token"),
    "rubygems": ("rubygems" + "_1557301da91cca26deaf516303b0818cb35166234c4041eb", "rubygems-token"),
    "artifactory": ("AKC" + (
        "p3jScGayu9i87Ev8ehwR3JmD1LmWpMBPLP1zu3BkYxrmjmBX5q5dDGNMXvQk4uj0Lr4htw"),
        "artifactory-token"),
    "groq": ("gsk" + "_adn5sJ39ByvkPxSijz7Qg9y2xferF4VdxZm7E2yIAZRqMXq38rvS", "groq-key"),
    "xai": ("xai" + "-xJilexwEhfsSXsQVOpWeGoFFbYtka5XepO8GfMInVacKJAW5QK51bOctO0fby2M3Z8ieGLnA7XdIKCV3", "xai-key"),
    "replicate": ("r8" + "_k2omuB9v2uREdTu3Fn6kmoFUemHPDxCb935G2", "replicate-token"),
    "perplexity": ("pplx" + "-esrHItsdzGTlGuv846rsAiP7t03RMj8ajzBQOpOPubsjuRiG", "perplexity-key"),
    "square": ("sq0" + "atp-YlSMUgow0bbrqZoOkVm949", "square-token"),
    "shippo": ("shippo" + "_live_f47b998ec09ce0884176adb4afd85202708ef120", "shippo-token"),
    "plaid": ("access" + "-production-973a5d0e-147c-7e09-262b-540b93ffc72c", "plaid-token"),
    "brevo": ("xkeysib" + (
        "-e9b879829bc390e77b906a5e6e71f0f62f852d1c70e5051bce864447e8be8758-1YgKEEhP1r4i5fzX"),
        "brevo-key"),
    "notion": ("ntn" + "_89029921910gfV2tWzB5Kmu5NpTqctX8e5GLXt15qngNsG", "notion-token"),
    "planetscale": ("pscale" + "_pw_VQJ8x3Ted0Zx5dVxQEBQ0NsVR25XNyxRx4TovWKz5AK", "planetscale-token"),
    "supabase": ("sbp" + "_9e6acc22282cca6d9a15193abc653062ef573deb", "supabase-token"),
    "slack-refresh": ("xoxe" + (
        "-1-BU16T4B375DIJ6K6XW0F8E0IAX1OU7YYKD3E3SJY6CL278GNQFAOX2Z96SKBYOZE5ECCSW0RN70C4QQTPHDNETLN0VASY"
        "0ZPPZI8HWEMAEKP3Y1WAGOEHBNKRW3FIEA5J1UNXDJB92TOPX9OI3"),
        "slack-token"),
    "gitlab-runner-registration": ("GR1348941" + "PFUYxTTQBeRVvAYrVEv_", "gitlab-token"),
    "mailchimp": ("9c3f71e0b4d25a86" + "e17f02c9d8ab6354" + "-us21", "mailchimp-key"),
    "facebook": ("EAACEdEose0cBA" + "Kz9mQ2vL7pR4aB8cD3eF6gH1jK5nP0sT2uW4yZ6bXk9mQ2vL7pR4aB8cD3eF6gH1jK5nP0sT2uW4",
                 "facebook-token"),
    "azure-devops": ("FBdFol081crwkIHWJH2yiqDDyrFjVSi7HWl22hN2hTYfsB8NlGDp" + "JQQJ99BAACAAAAAAAAAAAAAS" + "AZDOXq2b",
                     "azure-devops-token"),
}
SENTENCES = ["I used {} for the demo.", "({})", "`{}`", "try {}.", "{}\n"]


@pytest.mark.parametrize(("key", "kind"), API_KEYS.values(), ids=list(API_KEYS))
@pytest.mark.parametrize("sentence", SENTENCES)
def test_api_keys_standing_alone_are_redacted(key: str, kind: str, sentence: str) -> None:
    result = SCANNER.scan(sentence.format(key))
    assert not result.quarantined
    assert result.text == sentence.format(f"[REDACTED:{kind}]")


def test_a_data_centre_after_no_random_key_is_kept() -> None:
    """A Mailchimp key is 32 random hex digits and its data centre: a sequence before ``-us6``, or a
    job's name ending in one, is no key."""
    text = "0123456789abcdef0123456789abcdef-us6 in the docs; the build-us1 job and x-us12"
    assert SCANNER.scan(text).text == text


_DD_API = "9f3a1c7e5b2d4f6a" + "8c0e1b3d5f7a9c2e"  # 32 hex digits
_DD_APP = _DD_API + "4b6d8f0a"  # 40
_ZENDESK = "Xk9mQ2vL7pR4aB8c" + "D3eF6gH1jK5nP0sT2uW4yZ6b"  # 40 letters and digits
_ADO_PAT = "k4mz7q2xw5vfh3nptyj6r2bsc2" + "dlg7ue4oaxi5wq3hnz6kvyrtpa"  # 52 lower-case base32
# A value of the shape a vendor issues, assigned to a key naming the vendor whose own word is too
# common to tell a secret by (a bare "key", "pat").
VENDOR_KEYS = {
    "codecov-camel-key": (f'"codecovKey": "{_DD_API}"', '"codecovKey": "{}"'),
    "codecov-uuid": ("CODECOV_KEY=9f3a1c7e-5b2d-4f6a-8c0e-1b3d5f7a9c2e", "CODECOV_KEY={}"),
    "datadog-app-key": (f"DD_APP_KEY={_DD_APP}", "DD_APP_KEY={}"),
    "datadog-camel": (f'ddAppKey: "{_DD_APP}"', 'ddAppKey: "{}"'),
    "datadog-spaced": (f"DATADOG_APP_KEY = '{_DD_APP}'", "DATADOG_APP_KEY = '{}'"),
    "datadog-column": (f"DD_APP_KEY    {_DD_APP}", "DD_APP_KEY    {}"),
    "datadog-cell": (f"| DD_APP_KEY | {_DD_APP} |", "| DD_APP_KEY | {} |"),
    "zendesk": (f"zendesk_key: {_ZENDESK}", "zendesk_key: {}"),
    "facebook-key": (f"FB_KEY={_DD_API}", "FB_KEY={}"),
    "facebook-app-key": (f'"facebookAppKey": "{_DD_API}"', '"facebookAppKey": "{}"'),
    "azure-devops-pat": (f"AZURE_DEVOPS_EXT_PAT={_ADO_PAT}", "AZURE_DEVOPS_EXT_PAT={}"),
    "azure-devops-camel": (f'azureDevOpsPat: "{_ADO_PAT}"', 'azureDevOpsPat: "{}"'),
    "ado-pat": (f"ADO_PAT: {_ADO_PAT}", "ADO_PAT: {}"),
}


@pytest.mark.parametrize(("text", "redacted"), VENDOR_KEYS.values(), ids=list(VENDOR_KEYS))
def test_a_vendors_key_told_by_its_name_is_redacted(text: str, redacted: str) -> None:
    assert SCANNER.scan(text).text == redacted.format("[REDACTED:credential-assignment]")


@pytest.mark.parametrize("text", [
    '"accountKey": "483920175563"',  # digits alone: an id
    f"DD_SITE=datadoghq.com\nDD_ENV: {_DD_API[:12]}\ncodecov_url: https://codecov.io/gh/acme/app",
    '"codecovKey": "0123456789abcdef0123456789abcdef"\n"ddKey": "ffffffffffffffffffffffffffffffff"',
    "DD_APP_KEY=<your-app-key>\nDD_APP_KEY=${DD_APP_KEY}\ncodecov: aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa",
    f"add_key={_DD_API}\nhidden_key_value={_DD_API}\ndatadog_commit: {_DD_APP}",
    f"datadog    {_DD_API}\nzendesk_ticket: {_ZENDESK}",
    "FB_APP_ID=123456789012345\nAZURE_TENANT_ID=9f3a1c7e-5b2d-4f6a-8c0e-1b3d5f7a9c2e",
    f"azure_compat: {_ADO_PAT}\ndevops_pipeline: {_ADO_PAT}\navocado_key: {_ADO_PAT}\nado: {'abcdefghijklm' * 4}",
])
def test_a_vendors_name_beside_no_key_of_its_shape_is_kept(text: str) -> None:
    assert SCANNER.scan(text).text == text


_MIXED = "Zq3kP9xLm2Vb7Rt5" + "Nw8Yc4Hd6Jf1Gs0Ae3Uo9Ti2Bv"  # 42 letters of both cases and digits
# A random value under a key that names a vendor whose keys have no shape of their own: the
# vendor's name alone, or before a bare "key".
VENDOR_NAMED = {
    "openai-toml": f'openai = "{_MIXED}"',
    "twilio-yaml": f"twilio: {_DD_API}",
    "anthropic-json": f'{{"anthropic": "{_MIXED}", "cohere": "{_MIXED[::-1]}"}}',
    "sendgrid-env": f"SENDGRID={_MIXED}",
    "mailgun-dashed": f"MAILGUN: {_DD_API}-6c3e1f2a-9b8d7c6e",
    "dotted-key": f"keys.mistral: '{_MIXED[:32]}'",
    "two-words": f"NEW_RELIC={_DD_APP}",
    "camel-case": f'openAI := "{_MIXED}"',
    "arrow": f"'huggingface' => '{_MIXED[:34]}'",
    "github-random": f"github: {_MIXED}",
    "mailgun-key": f"MAILGUN_KEY={_DD_API}",
    "sendgrid-camel-key": f'"sendgridKey": "{_MIXED}"',
    "twilio-key": f"TWILIO_KEY={_MIXED[:32]}",
    "datadog-alone": f"datadog: {_DD_APP}",
}


@pytest.mark.parametrize("text", VENDOR_NAMED.values(), ids=list(VENDOR_NAMED))
def test_a_random_value_under_a_vendors_name_is_redacted(text: str) -> None:
    result = SCANNER.scan(text)
    assert "[REDACTED:credential-assignment]" in result.text
    for secret in (_MIXED, _MIXED[::-1], _MIXED[:32], _MIXED[:34], _DD_API):
        assert secret not in result.text


@pytest.mark.parametrize("text", [
    "github: octocat\nopenai: gpt-4o-2024-08-06\nanthropic: claude-3-5-sonnet-20241022",
    "huggingface: HuggingFaceH4/zephyr-7b-beta\nhuggingface: meta-llama/Llama-3.1-8B-Instruct",
    "stripe: pk_live_51HqLyjWDarjtT1zdp7dcXq2a\nOPENAI_ORG=org-Zq3kP9xLm2Vb7Rt5Nw8Yc4Hd",
    f"openai: org-{_MIXED[:24]}\nopenai: proj_{_MIXED[:24]}\nstripe: acct_{_MIXED[:16]}",
    "github: 9fceb02d0ae598e95dc970b74767f19372d61af8\ntwilio: AC3f9c2a7b1e8d4c6f0a5b9e2d7c1f8a3b",
    f"sentry: https://{_DD_API}@o1.ingest.sentry.io/2\n\"github\": \"https://github.com/acme/app\"",
    "github: ${{ secrets.GH_TOKEN }}\nopenai: <your-key-here>\nopenai: " + "x" * 32,
    'openai = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef012345"\njira: PROJ-1234\nslack: C024BE91L',
    "gitlab: AbstractGitlabClientFactoryV2\ndatadog: DatadogMetricsExporter2024",
    f"segment: {_MIXED}\nmodel_name: {_MIXED}\nopenai_org: {_MIXED}",  # no vendor, or not the vendor alone
    f"| openai | {_MIXED} |\nopenai    {_MIXED}",  # a table's cells, a column's gap: lists of ids too
    f"MAILGUN_KEY={_DD_API[:16]}\nSTRIPE_PUBLISHABLE_KEY=pk_test_{_MIXED[:24]}",
])
def test_a_vendors_name_over_no_random_value_is_kept(text: str) -> None:
    assert SCANNER.scan(text).text == text


VENDOR_KEY_IN_PROSE = {
    "hex": (f"the mailgun key is {_DD_API}", _DD_API),
    "mixed": (f"the cohere key was {_MIXED}", _MIXED),
    "colon-spaced": (f"mailgun key: {_DD_API}", _DD_API),
    "capitalised": (f"Our Twilio key = {_MIXED[:32]}", _MIXED[:32]),
    "possessive": (f"cohere's key is {_MIXED}", _MIXED),
    "used": (f"use the sendgrid key {_MIXED} for staging", _MIXED),
    "note": (f"the mailgun key (prod) is now {_DD_API}.", _DD_API),
    "before": (f"{_MIXED} is the openai key", _MIXED),
    "typed": ("the twilio key is Zq3k!P9xL", "Zq3k!P9xL"),
    "token": (f"our sendgrid token: {_DD_API}", _DD_API),
}


@pytest.mark.parametrize(("text", "secret"), VENDOR_KEY_IN_PROSE.values(), ids=list(VENDOR_KEY_IN_PROSE))
def test_a_vendors_key_told_in_a_sentence_is_redacted(text: str, secret: str) -> None:
    result = SCANNER.scan(text)
    assert secret not in result.text
    assert "[REDACTED:" in result.text


@pytest.mark.parametrize("text", [
    f"the primary key is {_DD_API}",
    f"the cache key is {_MIXED}",
    f"the monkey is {_MIXED}",
    "the github key is ~/.ssh/id_ed25519",
    "the stripe key is in 1Password under Payments",
    "the openai key is stored in OPENAI_API_KEY",
    "the mailgun key is rotated every 90 days",
    "the github key fix landed in commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
])
def test_a_key_in_a_sentence_naming_no_vendor_or_no_secret_is_kept(text: str) -> None:
    assert SCANNER.scan(text).text == text


@pytest.mark.parametrize("url", [
    f"https://{_ADO_PAT}@dev.azure.com/acme/app/_git/app",
    f"https://{_ADO_PAT}@acme.visualstudio.com/app/_git/app",
])
def test_an_azure_devops_token_given_as_a_urls_user_is_redacted(url: str) -> None:
    text = f"git clone {url}"
    assert SCANNER.scan(text).text == text.replace(_ADO_PAT, "[REDACTED:url-credential]")


@pytest.mark.parametrize(("text", "password"), [
    ("https://bob:Zq3k@P9xLm2@git.acme.io/repo.git", "Zq3k@P9xLm2"),  # an @ left unencoded
    ("https://bob@acme.io:Zq3kP9xLm2@git.acme.io/repo.git", "Zq3kP9xLm2"),  # in the user too
    ('{"url": "https:\\/\\/bob:Zq3kP9xLm2@git.acme.io\\/repo.git"}', "Zq3kP9xLm2"),  # JSON's escaped slashes
    ("mongodb+srv://bob:Zq3k%40P9xLm2@cluster0.mongodb.net/app", "Zq3k%40P9xLm2"),
])
def test_a_urls_password_is_redacted_whole_however_its_url_is_written(text: str, password: str) -> None:
    assert SCANNER.scan(text).text == text.replace(password, "[REDACTED:url-credential]")


@pytest.mark.parametrize("text", [
    "ssh://git@github.com:22/acme/app.git and git@github.com:acme/app.git",
    "https://user@example.com/path@v2 and http://localhost:3000/@vite/client",
    "email bob@acme.io: https://x.io/a@b",
])
def test_a_url_with_an_at_and_no_password_is_kept(text: str) -> None:
    assert SCANNER.scan(text).text == text


@pytest.mark.parametrize(("text", "password", "kind"), [
    ("jdbc:oracle:thin:bob/Zq3k!P9xLm2@db.acme.io:1521/orcl", "Zq3k!P9xLm2", "url-credential"),
    ('jdbc:oracle:thin:bob/"Zq3k@P9xLm2"@//db.acme.io:1521/orcl', "Zq3k@P9xLm2", "url-credential"),
    ("spring.datasource.url=jdbc:oracle:oci:scott/Tiger2024x@prod", "Tiger2024x", "url-credential"),
    ("Driver={ODBC Driver 18};Server=db;Uid=bob;Pwd={Zq3k;!P9xLm2};", "Zq3k;!P9xLm2", "credential-assignment"),
    ("Driver={ODBC Driver 18};Server=db;UID=bob;PWD={Zq3k}}!P9xLm2};Encrypt=yes", "Zq3k}}!P9xLm2",
     "credential-assignment"),
])
def test_a_password_in_an_oracle_url_or_braced_in_a_connection_string_is_redacted(
        text: str, password: str, kind: str) -> None:
    assert SCANNER.scan(text).text == text.replace(password, f"[REDACTED:{kind}]")


@pytest.mark.parametrize("text", [
    "jdbc:oracle:thin:@db.acme.io:1521:orcl\njdbc:oracle:thin:@//db.acme.io:1521/orcl",
    "jdbc:oracle:thin:scott/${DB_PASSWORD}@db:1521/orcl\njdbc:oracle:thin:scott/<password>@db:1521/orcl",
    'Driver={ODBC Driver 18};Uid=bob;Pwd={password};\nconn = f"Pwd={pwd};Uid={uid}"\npassword={{ vault_password }}',
])
def test_connection_strings_holding_no_password_are_kept(text: str) -> None:
    assert SCANNER.scan(text).text == text


@pytest.mark.parametrize("text", [
    "password: |\n  Zq3k!P9xLm2Vb7\n",
    "db_password: >-\n    Zq3k!P9xLm2Vb7\nhost: db\n",
    "api_token: |2+ # the token\n  Zq3k!P9xLm2Vb7\n",
])
def test_a_yaml_block_scalars_password_is_redacted(text: str) -> None:
    assert SCANNER.scan(text).text == text.replace("Zq3k!P9xLm2Vb7", "[REDACTED:credential-assignment]")


@pytest.mark.parametrize("text", [
    "password: |\n  {{ vault_db_password }}\n",
    "description: |\n  Zq3k!P9xLm2Vb7\n",
    "secret: >\n  the secret rotates every ninety days\n",
    "if password_length > 12:\n    accept()\n",
])
def test_a_yaml_block_scalar_holding_no_password_is_kept(text: str) -> None:
    assert SCANNER.scan(text).text == text


_SIGNATURE = "9f3a1c7e5b2d4f6a8c0e1b3d5f7a9c2e" + "4b6d8f0a1c3e5b7d9f2a4c6e8b0d2f4a"  # 64 hex digits


@pytest.mark.parametrize("url", [
    "https://bucket.s3.amazonaws.com/x?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=3600&X-Amz-SignedHeaders=host"
    "&X-Amz-Signature={}",
    "https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature={}&x=1",
])
@pytest.mark.parametrize("signature", [_SIGNATURE, _SIGNATURE * 8])
def test_a_presigned_urls_signature_is_redacted(url: str, signature: str) -> None:
    text = "download it from " + url.format(signature) + " before it expires"
    assert SCANNER.scan(text).text == text.replace(signature, "[REDACTED:url-signature]")


def test_a_presigned_urls_signature_parameter_named_alone_is_kept() -> None:
    text = f"the X-Amz-Signature= parameter holds 64 hex digits; x-amz-signature={'0' * 64}"
    assert SCANNER.scan(text).text == text


@pytest.mark.parametrize("text", [
    "CREATE USER 'bob'@'%' IDENTIFIED BY 'Zq3k!P9xLm2Vb7';",
    "CREATE USER 'bob'@'%' IDENTIFIED WITH mysql_native_password BY 'Zq3k!P9xLm2Vb7';",
    "ALTER USER bob IDENTIFIED BY Zq3k!P9xLm2Vb7;",
    "SET PASSWORD FOR 'bob'@'localhost' = PASSWORD('Zq3k!P9xLm2Vb7');",
    "sudo -u postgres psql -c \"CREATE ROLE app LOGIN PASSWORD 'Zq3k!P9xLm2Vb7'\"",
])
def test_a_password_sql_sets_is_redacted(text: str) -> None:
    assert SCANNER.scan(text).text == text.replace("Zq3k!P9xLm2Vb7", "[REDACTED:credential-assignment]")


@pytest.mark.parametrize("text", [
    "the password 'required' flag\nEnter password 'here' to continue\nidentified by the fingerprint on the badge",
    "CREATE USER bob IDENTIFIED BY :pw;\nALTER USER bob IDENTIFIED BY '${DB_PASSWORD}';",
    "CREATE USER bob IDENTIFIED EXTERNALLY;\nCREATE ROLE app LOGIN PASSWORD NULL;",
    "CREATE USER 'bob'@'%' IDENTIFIED BY '<password>';\nuser.set_password(password)",
])
def test_sql_setting_no_password_is_kept(text: str) -> None:
    assert SCANNER.scan(text).text == text


@pytest.mark.parametrize(("text", "redacted"), [
    ("jdbc:postgresql://db:5432/app?user=bob&password=Zq3k!P9xLm2&ssl=true",
     "jdbc:postgresql://db:5432/app?user=bob&password=[REDACTED:credential-assignment]&ssl=true"),
    ("https://api.acme.io/x?access_token=Zq3kP9xLm2Vb7Rt5Nw8Yc4Hd&page=2",
     "https://api.acme.io/x?access_token=[REDACTED:credential-assignment]&page=2"),
    ("password=Zq3k&P9xLm2", "password=[REDACTED:credential-assignment]"),  # an & no parameter follows
])
def test_a_querys_credential_goes_and_the_parameters_after_it_stay(text: str, redacted: str) -> None:
    assert SCANNER.scan(text).text == redacted


@pytest.mark.parametrize("user", [_MIXED[:40], _DD_APP])
def test_a_random_token_given_as_a_urls_only_user_is_redacted(user: str) -> None:
    text = f"git remote set-url origin https://{user}@github.com/acme/app.git"
    assert SCANNER.scan(text).text == text.replace(user, "[REDACTED:url-credential]")


def test_a_urls_user_of_no_token_shape_is_kept() -> None:
    text = ("git clone https://x-access-token@github.com/acme/app.git https://gitlab-ci-token@gitlab.com/a/b.git\n"
            "https://MyVeryLongServiceAccountName2024@host.io/x https://deploy-bot-for-staging-cluster@host.io\n"
            "https://9f3a1c7e5b2d4f6a8c0e1b3d5f7a9c2e@sentry.acme.io/2 https://9f3a1c7e5b2d4f6a8c0e1b3d5f7a9c2e@h.io/42\n"
            "git clone https://bob@dev.azure.com/acme/app/_git/app\n"
            f"https://{'abcdefghijklm' * 4}@dev.azure.com/x and https://{_ADO_PAT.upper()}@example.com/")
    assert SCANNER.scan(text).text == text


@pytest.mark.parametrize("text", [
    "E" + "A" * 120,  # a filler
    "iVBORw0KGgo+EAA" + "Kz9mQ2vL7pR4aB8cD3eF6gH1jK5nP0sT2uW4yZ6bXk9mQ2vL7pR4aB8cD3eF6gH1jK5nP0sT2uW4yZ6bQ/",  # base64
    "EAAGm0PX4ZCpsBAKZCZBZ",  # 18 characters after EAA: shorter than any token
    "EAAStatusCodeHandlerV2Factory EAA1234567890123456789012345 EAAPLACEHOLDERTOKENVALUE12345",
    "iVBORw0KGgo+EAAKz9mQ2vL7pR4aB8cD3eF6gH1jK5nP0sT2uW4",  # inside base64
    "QyNTUxOQAAACBQk7m5Vq3x9Zr2Lw8Hn4Tc6Yp1Ks0Jd5Fg3Mb7Xe2RuAAAAJgxT9wQMUc\n"
    "EAAAAAtzc2gtZWQyNTUxOQAAACBQk7m5Vq3x9Zr2Lw8Hn4Tc6Yp1Ks0Jd5Fg3Mb7Xe2Ru",  # a key's base64 line, zero bytes
    "the newer tokens end in AZDO and four characters, after JQQJ and twenty more",
    "A" * 52 + "JQQJ99BAACAAAAAAAAAAAAAS" + "AZDOXq2b",  # no random part
])
def test_facebook_and_azure_devops_look_alikes_are_kept(text: str) -> None:
    assert SCANNER.scan(text).text == text


@pytest.mark.parametrize("token", [
    "EAACEdEose0cBA" + "Kz9mQ2vL7pR4aB8cD3eF6gH1jK5nP0sT2uW4",
    "EAAGm0PX4ZCpsBAKZCZBZAZCZCZBZA",
    "EAAJ4kPq2ZBx7wBO9mZCtR3vZAq1LZBd",
])
def test_a_short_facebook_token_is_redacted(token: str) -> None:
    text = f'curl "https://graph.facebook.com/me?access_token={token}" and {token}.'
    assert SCANNER.scan(text).text == text.replace(token, "[REDACTED:facebook-token]")


_NAMED = "Zq3k!P9xLm2Vb7"
# A credential named in one field and given in another of the same object, or in an object under
# its key: how configuration and the tools printing it write environment variables and parameters.
NAMED_VALUES = {
    "kubernetes-env": f"env:\n  - name: DB_PASSWORD\n    value: {_NAMED}\n  - name: LOG_LEVEL\n    value: debug\n",
    "kubernetes-env-quoted": f'env:\n- name: "API_TOKEN"\n  value: "{_NAMED}"\n',
    "ecs-json": json.dumps({"environment": [{"name": "DB_PASSWORD", "value": _NAMED}]}),
    "ssm-parameter": json.dumps(
        {"Parameter": {"Name": "/prod/db/password", "Type": "SecureString", "Value": _NAMED, "Version": 3}}, indent=4),
    "cloudformation": json.dumps([{"ParameterKey": "DbPassword", "ParameterValue": _NAMED}]),
    "har-form": json.dumps({"params": [{"name": "username", "value": "bob"}, {"name": "password", "value": _NAMED}]}),
    "har-header": json.dumps({"headers": [{"name": "X-Api-Key", "value": _NAMED}]}),
    "terraform-env": f'env {{\n  name  = "DB_PASSWORD"\n  value = "{_NAMED}"\n}}',
    "arm-parameters": json.dumps({"parameters": {"adminPassword": {"value": _NAMED}}}, indent=2),
    "azure-pipeline": f"variables:\n- name: dbPassword\n  value: '{_NAMED}'\n",
}


@pytest.mark.parametrize("text", NAMED_VALUES.values(), ids=list(NAMED_VALUES))
def test_a_credential_named_in_one_field_and_given_in_another_is_redacted(text: str) -> None:
    result = SCANNER.scan(text)
    assert result.text == text.replace(_NAMED, "[REDACTED:credential-assignment]")


@pytest.mark.parametrize("text", [
    "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password\n"
    "- name: LOG_LEVEL\n  value: debug-level-9\n",  # the next variable's value is no password's
    json.dumps([{"key": "reset_password", "value": "Reset your password"}, {"key": "password", "value": "Password"}]),
    "- name: DB_PASSWORD\n  value: $(DB_PASSWORD)\n- name: API_TOKEN\n  value: ${API_TOKEN}\n",
    f"- name: LOG_LEVEL\n  value: {_NAMED}\nfilename: secret_token.txt\nvalue: {_NAMED}",
    json.dumps([{"name": "DB_PASSWORD"}, {"name": "HOST", "value": "db-17.acme.internal"}]),
    json.dumps({"location": {"value": "westeurope"}, "adminPassword": {"value": "[parameters('pw')]"}}),
    json.dumps({"adminPassword": {"reference": {"keyVault": {"id": "/subs/x"}, "secretName": "pw"}}}),
    json.dumps({"name": "DB_PASSWORD", "value": "<your-password>"}),
])
def test_a_named_field_holding_no_credential_is_kept(text: str) -> None:
    assert SCANNER.scan(text).text == text


_BASIC = "Ym9iOlpxM2shUDl4" + "TG0yVmI3"  # base64 of a user and a password


@pytest.mark.parametrize(("text", "kind"), [
    (json.dumps({"headers": [{"name": "Authorization", "value": f"Basic {_BASIC}"}]}), "basic-auth"),
    (json.dumps({"header": [{"key": "Authorization", "value": f"Basic {_BASIC}"}]}, indent=2), "basic-auth"),
    (f"- name: Authorization\n  value: token {_BASIC}x", "bearer-token"),
])
def test_an_authorization_header_given_as_a_name_and_a_value_is_redacted(text: str, kind: str) -> None:
    result = SCANNER.scan(text)
    assert _BASIC not in result.text and f"[REDACTED:{kind}]" in result.text


def test_an_authorization_value_named_in_prose_is_kept() -> None:
    text = "Authorization value: Basic auth is deprecated; the Authorization, value: token based"
    assert SCANNER.scan(text).text == text


_SESSION = "Zq3kP9xLm2Vb7Rt5" + "Nw8Yc4Hd6Jf1Gs0"


@pytest.mark.parametrize("text", [
    f"Cookie: sessionid={_SESSION}; csrftoken=abc",
    f"curl -H 'Cookie: PHPSESSID={_SESSION}' https://acme.io",
    "curl -b 'JSESSIONID=6F2E1A9C3B7D05E4A8F1C2D3B4A59687' https://acme.io",
    f'curl --cookie "_gitlab_session={_SESSION}" https://gitlab.acme.io',
    f"Set-Cookie: connect.sid=s%3A{_SESSION}.Xk9mQ2vL7pR4; Path=/; HttpOnly",
    json.dumps({"cookies": [{"name": "laravel_session", "value": _SESSION}]}),
    json.dumps({"headers": [{"name": "Cookie", "value": f"_gh_sess={_SESSION}; logged_in=yes"}]}),
])
def test_a_session_cookie_is_redacted(text: str) -> None:
    result = SCANNER.scan(text)
    assert "[REDACTED:session-cookie]" in result.text
    assert _SESSION not in result.text and "6F2E1A9C3B7D05E4" not in result.text


@pytest.mark.parametrize("text", [
    "Cookie: sessionid=<your-session-id>; csrftoken=abc\nCookie: sessionid=${SESSION_ID}",
    "Set-Cookie: session=deleted; expires=Thu, 01 Jan 1970 00:00:00 GMT\nSet-Cookie: sessionid=abcdefabcdefabcdef",
    f"Cookie: theme=dark; lang={_SESSION}",  # no session's cookie
    "the session cookie is named sessionid; set it with Cookie: sessionid=...",
    json.dumps({"cookies": [{"name": "session_timeout", "value": "3600"}]}),
])
def test_cookies_holding_no_session_are_kept(text: str) -> None:
    assert SCANNER.scan(text).text == text


_DISCORD_WEBHOOK = ("https://discord.com/api/webhooks/" + "4975623989216096518/"
                    + "TcMWfB7-iGk84M1goOv4tGZq-rb8blmBhqjkbJ7IcLHCqPYcx5y6BeQj1CPqWhEJHI4U")
_TEAMS_WEBHOOK = ("https://contoso.webhook.office.com/webhookb2/"
                  + "bdd20927-b677-7c69-6729-268e0cae9d90@46ebb054-3f6d-2ed3-708b-2ac2a9ad1651/IncomingWebhook/"
                  + "bf5c30134790495bcc18d1b9997dda0a/f610b456-75d7-e0e3-7ca7-f7176fef8486")


@pytest.mark.parametrize(("url", "kind"), [(_DISCORD_WEBHOOK, "discord-webhook"), (_TEAMS_WEBHOOK, "teams-webhook")])
def test_a_chat_webhook_url_loses_its_secret_path(url: str, kind: str) -> None:
    """A Discord or Teams incoming webhook's URL is its credential: the path after the host goes."""
    host = url[: url.index("/", 8)]
    result = SCANNER.scan(f"post the report to {url} when the build ends")
    assert result.text.startswith(f"post the report to {host}/")
    assert f"[REDACTED:{kind}] when the build ends" in result.text
    assert url.rsplit("/", 1)[1] not in result.text


NOT_API_KEYS = [
    "sk-learn is the usual misspelling of scikit-learn",
    "set OPENAI_API_KEY to your sk-... key, never commit it",
    "the key looks like sk-proj-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "Stripe keys start with sk_live_ or sk_test_ followed by random characters.",
    "npm_config_registry=https://registry.npmjs.org/ is read from the environment",
    "a GitLab token is glpat- and twenty characters",
    "AIzaSy is how Google API keys begin",
    "the cache key is task-sk-0123456789abcdef0123456789abcdef-v2",
    "the class hf_AutoModelForSequenceClassificatio wraps it",
    "hf_transformersmodelloaderconfigxyz is a lowercase name, not a token",
    # a Slack token's shape ending in a name is a placeholder's
    "set the bot token to xoxb-xoxb-my-bot-token first",
    "the app config token looks like xoxe.xoxp-1-SlackAppConfigurationAccessTokenHere",
]


@pytest.mark.parametrize("text", ["export HF_TOKEN=hf" + "_NqVwYSVPHbDXpPdkhxEpyIgKpaUnArlXyk",
                                  "SENDGRID=SG" + ".jr4qqaaABvvLOzAxzXMcU1.vsHiQMaRiNTN9Ox98whGcTZc1UWb5fxzpF7STG7nVLe"])
def test_an_api_key_assigned_to_a_variable_is_redacted_whatever_the_key(text: str) -> None:
    """A token whose shape is known goes whether or not its variable's name reads as a credential's,
    and a shape with an underscore is no reference to a variable."""
    result = SCANNER.scan(text)
    assert result.redactions == 1 and "NqVw" not in result.text and "jr4q" not in result.text


_TWILIO_KEY = "SK" + "2b9f4c1e7a3d5f8b0c6e2a4d9f1b3c5e"
_TWILIO_SECRET = "bEUzu9LZWmLHHzS7YQkJeQpBO6QYrxz0"
_TWILIO_ACCOUNT = "AC" + "7e1d3a9c5b2f4e8d0a6c1b3e5f7a9d2c"
_TWILIO_TOKEN = "9f1b3c5e2b9f4c1e7a3d5f8b0c6e2a4d"


@pytest.mark.parametrize("text", [
    f"TWILIO_API_KEY_SID={_TWILIO_KEY}\nTWILIO_API_KEY_PASSWORD_VALUE={_TWILIO_SECRET}\n",
    f"client = Client('{_TWILIO_KEY}', '{_TWILIO_SECRET}', '{_TWILIO_ACCOUNT}')\n",
    f"client = Client(\n    '{_TWILIO_ACCOUNT}',\n    '{_TWILIO_TOKEN}',\n)\n",
    f"const sid = '{_TWILIO_ACCOUNT}';\nconst tok = '{_TWILIO_TOKEN}';\n",
    f"TWILIO_API_KEY={_TWILIO_KEY}\nTWILIO_API_SECRET={_TWILIO_SECRET}\n",
])
def test_a_twilio_key_and_the_secret_beside_it_are_redacted(text: str) -> None:
    """A Twilio API key's SID is a credential's shape; its secret, or an account's auth token,
    is told by the SID beside it, whatever names it. The account's SID, in every API URL, stays."""
    result = SCANNER.scan(text)
    for secret in (_TWILIO_KEY, _TWILIO_SECRET, _TWILIO_TOKEN):
        assert secret not in result.text, result.text
    assert _TWILIO_ACCOUNT in result.text or _TWILIO_ACCOUNT not in text


@pytest.mark.parametrize("text", [
    f"TWILIO_ACCOUNT_SID={_TWILIO_ACCOUNT}\nTWILIO_AUTH_TOKEN={_TWILIO_TOKEN}\n",
    f'{{"account_sid": "{_TWILIO_ACCOUNT}",\n "auth_token": "{_TWILIO_TOKEN}"}}\n',
    f"const client = twilio('{_TWILIO_ACCOUNT}', '{_TWILIO_TOKEN}');\n",
    f"twilio:\n  sid: {_TWILIO_ACCOUNT}\n  authToken: {_TWILIO_TOKEN}\n",
    f"curl -X GET https://api.twilio.com/2010-04-01/Accounts.json -u {_TWILIO_ACCOUNT}:{_TWILIO_TOKEN}\n",
    # Twilio's own quickstarts: any call given the SID then the token, a token named a key
    f"const client = require('twilio')('{_TWILIO_ACCOUNT}', '{_TWILIO_TOKEN}');\n",
    f'TwilioClient.Init("{_TWILIO_ACCOUNT}", "{_TWILIO_TOKEN}");\n',
    f"TWILIO_SID={_TWILIO_ACCOUNT}\nTWILIO_KEY={_TWILIO_TOKEN}\n",
    f'$twilio = new Client("{_TWILIO_ACCOUNT}", "{_TWILIO_TOKEN}");\n',
    f"@client = Twilio::REST::Client.new('{_TWILIO_ACCOUNT}', '{_TWILIO_TOKEN}')\n",
    f'client := twilio.NewRestClientWithParams(twilio.ClientParams{{Username: "{_TWILIO_ACCOUNT}", Password: "{_TWILIO_TOKEN}"}})\n',
])
def test_an_auth_token_told_so_beside_an_account_sid_is_redacted(text: str) -> None:
    """Named an auth token, paired with the SID, or the argument after it in a client's constructor."""
    assert _TWILIO_TOKEN not in SCANNER.scan(text).text


@pytest.mark.parametrize("text", [
    f"GET /2010-04-01/Accounts/{_TWILIO_ACCOUNT}/Messages.json\nETag: d41d8cd98f00b204e9800998ecf8427e\n",
    f"The account {_TWILIO_ACCOUNT} sends from +15005550006.\n",
    "Twilio API keys look like SK followed by 32 hex digits; the secret is shown once.\n",
    f"the migration {_TWILIO_ACCOUNT[2:]} ran on {_TWILIO_SECRET.lower()}\n",
    # an account's SID beside a digest or an id of its shape: no auth token is named
    f"Recordings for account {_TWILIO_ACCOUNT} are archived nightly.\nLast archive md5: 9e107d9d372bb6826bd81d3542a419d6\n",
    f'{{"account_sid": "{_TWILIO_ACCOUNT}",\n "etag": "c4ca4238a0b923820dcc509a6f75849b"}}\n',
    f"account {_TWILIO_ACCOUNT}\nrequest_id = 0cc175b9c0f1b6a831c399e269772661\n",
    f"account {_TWILIO_ACCOUNT}, build 0cc175b9c0f1b6a831c399e269772661\n",
    f"account {_TWILIO_ACCOUNT}\nmd5_key = 0cc175b9c0f1b6a831c399e269772661\n",
    f"account {_TWILIO_ACCOUNT}\ncache_key_digest: 0cc175b9c0f1b6a831c399e269772661\n",
    f"account {_TWILIO_ACCOUNT}\nkey_id = 0cc175b9c0f1b6a831c399e269772661\n",
    f'log("{_TWILIO_ACCOUNT} archived", "0cc175b9c0f1b6a831c399e269772661")\n',
])
def test_twilio_ids_and_hex_runs_with_no_secret_beside_them_are_kept(text: str) -> None:
    result = SCANNER.scan(text)
    assert result.findings == (), (text, result.findings)


@pytest.mark.parametrize("text", NOT_API_KEYS)
def test_talk_about_api_key_formats_is_kept(text: str) -> None:
    result = SCANNER.scan(text)
    assert result.findings == (), (text, result.findings)


# Credentials in the shapes other services give them (the values are made up, in the real shapes).
_AZURE_KEY = "Zq3vB8kL2mN7pR4sT9wX1yA6cD0eF5gH2jK8lM3nP7qR4sT9vW2xY5zA1bC6dE0fG3hJ7kL9mN2pQ5rS8tU1vW" + "=="
_AZURE = f"DefaultEndpointsProtocol=https;AccountName=widgets;AccountKey={_AZURE_KEY};EndpointSuffix=core.windows.net"
_SAS_SIG = "q%2B8nXk4Wf3b2JmL9pQ7rT1vY5zA0cE6gH8jK2mN4oP0%3D"
_GITHUB = "ghp_" + "0fAGST5ohwj3Aio6ul2ncFNgdncvat1udBt1"
OTHER_SHAPES = {
    "azure-connection-string": (f"Storage: {_AZURE}", f"Storage: {_AZURE.replace(_AZURE_KEY, '[REDACTED:azure-storage-key]')}"),
    "azure-appsettings": ('{"ConnectionStrings": {"Storage": "' + _AZURE + '"}}',
                          '{"ConnectionStrings": {"Storage": "' + _AZURE.replace(_AZURE_KEY, "[REDACTED:azure-storage-key]")
                          + '"}}'),
    "azure-sas": (f"https://widgets.blob.core.windows.net/c/b.txt?sv=2021-06-08&sp=rl&se=2026-01-01T00:00:00Z&sig={_SAS_SIG}",
                  "https://widgets.blob.core.windows.net/c/b.txt?sv=2021-06-08&sp=rl&se=2026-01-01T00:00:00Z"
                  "&sig=[REDACTED:sas-signature]"),
    "curl-u": ("run curl -u alice:S3cr3tPassw0rd! https://api.example.com/x",
               "run curl -u alice:[REDACTED:basic-auth] https://api.example.com/x"),
    "curl-user-quoted": ("curl --user 'deploy:hunter2hunter' https://x", "curl --user 'deploy:[REDACTED:basic-auth]' https://x"),
    "curl-bundled": ("curl -sSLu bob:Zq8WkX3mPv7R https://x", "curl -sSLu bob:[REDACTED:basic-auth] https://x"),
    "curl-code-span": ("`curl -u bob:Zq8WkX3mPv7R`", "`curl -u bob:[REDACTED:basic-auth]`"),
    "curl-after-options": ('curl -sS -X POST -H "Accept: a, b" -u admin:hunter2 https://x',
                           'curl -sS -X POST -H "Accept: a, b" -u admin:[REDACTED:basic-auth] https://x'),
    "curl-quoted-url": ('curl "https://x/?a=1&b=2" -u admin:hunter2', 'curl "https://x/?a=1&b=2" -u admin:[REDACTED:basic-auth]'),
    "curl-continued-line": ("curl https://api.example.com/x \\\n  -u admin:hunter2",
                            "curl https://api.example.com/x \\\n  -u admin:[REDACTED:basic-auth]"),
    "curl-fenced": ("```sh\ncurl -sSLu deploy:s3cr3t https://x\n```", "```sh\ncurl -sSLu deploy:[REDACTED:basic-auth] https://x\n```"),
    "percent-encoded-letter": (f"see https://x.example/a%2Fb?q=%67{_GITHUB[1:]}&x=1",
                               "see https://x.example/a%2Fb?q=[REDACTED:github-token]&x=1"),
    "json-escaped-letter": (f'{{"msg": "use \\u0067{_GITHUB[1:]} now"}}', '{"msg": "use [REDACTED:github-token] now"}'),
    "escaped-letter-alone": (f"\\x67{_GITHUB[1:]}", "[REDACTED:github-token]"),
    "python-long-escape": (f"t = '\\U00000067{_GITHUB[1:]}'", "t = '[REDACTED:github-token]'"),
    "braced-escape": (f'let t = "\\u{{67}}{_GITHUB[1:]}";', 'let t = "[REDACTED:github-token]";'),
    "octal-escape": (f"printf $'\\147{_GITHUB[1:]}'", "printf $'[REDACTED:github-token]'"),
    "html-hex-reference": (f"<code>&#x67;{_GITHUB[1:]}</code>", "<code>[REDACTED:github-token]</code>"),
    "html-decimal-reference": (f"<p>gh&#112;{_GITHUB[3:]}</p>", "<p>[REDACTED:github-token]</p>"),
    "html-named-reference": (f"token: ghp&lowbar;{_GITHUB[4:]}", "token: [REDACTED:github-token]"),
    "html-reference-without-semicolon": (f"here &#103{_GITHUB[1:]}", "here [REDACTED:github-token]"),
    "perl-braced-escape": (f'my $t = "\\x{{67}}{_GITHUB[1:]}";', 'my $t = "[REDACTED:github-token]";'),
    "echo-e-octal": (f"echo -e '\\0147{_GITHUB[1:]}'", "echo -e '[REDACTED:github-token]'"),
    "python-named-escape": (f"t = '\\N{{LATIN SMALL LETTER G}}{_GITHUB[1:]}'", "t = '[REDACTED:github-token]'"),
    "escaped-tag-around-a-password": ("source: &lt;password&gt;Zq8vN2xLp4TkW9rB&lt;/password&gt;",
                                      "source: &lt;password&gt;[REDACTED:credential-assignment]&lt;/password&gt;"),
    "percent-encoded-form-body": ("body: user%3Dbob%26password%3DZq8vN2xLp4TkW9rC",
                                  "body: user%3Dbob%26password%3D[REDACTED:credential-assignment]"),
    "escaped-colon-in-curl-u": ("curl -u admin&colon;Zq8vN2xLp4TkW9rB https://x",
                                "curl -u admin&colon;[REDACTED:basic-auth] https://x"),
    "bearer-after-a-space-reference": ("Authorization: Bearer&#32;eyJhbGciOiJIUzI1NiJ9abcdefghij0123",
                                       "Authorization: Bearer&#32;[REDACTED:bearer-token]"),
    "bearer-after-no-break-space": ("Authorization: Bearer\u00a0eyJhbGciOiJIUzI1NiJ9abcdefghij0123",
                                    "Authorization: Bearer\u00a0[REDACTED:bearer-token]"),
    "assignment-with-narrow-spaces": ("password\u202f=\u2009Zq8WkX3mPv7Rk2", "password\u202f=\u2009[REDACTED:credential-assignment]"),
    "mysql-joined-password": ("mysql -u root -pXk9vR2mQ7pL4 shop", "mysql -u root -p[REDACTED:command-password] shop"),
    "mysqldump-bundled-user": ("mysqldump -uadmin -pS3cr3tPassw0rd! shop > dump.sql",
                               "mysqldump -uadmin -p[REDACTED:command-password] shop > dump.sql"),
    "mariadb-quoted-password": ("mariadb -u root -p'Xk9 vR2mQ7pL4' shop", "mariadb -u root -p'[REDACTED:command-password]' shop"),
    "sshpass": ("sshpass -p 'Xk9vR2mQ7pL4' ssh deploy@host", "sshpass -p '[REDACTED:command-password]' ssh deploy@host"),
    "docker-login": ("echo hi; docker login -u bob -p Xk9vR2mQ7pL4 registry.example.com",
                     "echo hi; docker login -u bob -p [REDACTED:command-password] registry.example.com"),
    "podman-login-long-option": ("podman login --password Xk9vR2mQ7pL4 -u bob ghcr.io",
                                 "podman login --password [REDACTED:command-password] -u bob ghcr.io"),
    "curl-u-after-ideographic-space": ("curl -u\u3000alice:S3cr3tPassw0rd! https://x",
                                       "curl -u\u3000alice:[REDACTED:basic-auth] https://x"),
}


@pytest.mark.parametrize(("text", "expected"), OTHER_SHAPES.values(), ids=list(OTHER_SHAPES))
def test_connection_strings_signed_links_command_passwords_and_escaped_tokens_are_redacted(
        text: str, expected: str) -> None:
    result = SCANNER.scan(text)
    assert not result.quarantined
    assert result.text == expected


NOT_OTHER_SHAPES = [
    # a placeholder in brackets where curl's password goes
    "curl -u <user:password> https://api.example.com/endpoint",
    "curl --user neo4j:[PASSWORD] http://localhost:7474/db/data/",
    "curl -u {user}:{password} https://api.example.com/endpoint",
    "AccountKey=<your-storage-account-key>;EndpointSuffix=core.windows.net",
    "the account key rotates every 90 days",
    "GET /api/search?q=retry&sig=abc&page=2",
    "curl -u $USER:$TOKEN https://x",
    "curl -u user: https://x (curl asks for the password)",
    "curl -u USER:PASSWORD https://x",
    "curl -u '<user>:<password>' https://x",
    "the password of `curl -u user:password`, in a code span",
    "curl -o out.tar.gz -u alice https://x",
    "echo -u a:bcdefgh; curl https://x",
    "Fetch the CLI with curl, and run the image as docker run -u node:node so files stay owned by node.",
    "Install it with curl then chown -u deploy:deploy the folder",
    "curl is fine. git log -u origin:main shows the patch",
    "Use curl https://x and docker exec -u www-data:www-data app php artisan migrate",
    "Run `curl https://x`, then `docker run -u node:node image`",
    "curl https://x && sudo -u deploy:deploy true",
    "mysql -h db -P 3306 -p shop",
    "run mysql -p to be asked for the password",
    "mysql -u root -p$MYSQL_PWD shop",
    "sshpass -p \"$PASS\" ssh deploy@host",
    "docker run -p 8080:80 nginx",
    "mysql -u root shop; ls -pretty",
    "mysql: the -ppassword form is insecure",
    "docker login -u bob --password-stdin ghcr.io",
    "the value is 50%20 of 100% done, see docs/a%20b.md",
    '{"name": "caf\\u00e9", "note": "\\u003cb\\u003ebold\\u003c/b\\u003e"}',
    "<p>Fish &amp; chips &#8212; &lt;b&gt; &#x41;&#66;C, &lowbar;private &copy; \\101\\102 \\u{1F600}</p>",
    "C:\\100\\files and \\0 and \\x{1F600}, &#1234 and &#x41BC, \\N{NO SUCH NAME}; ghp&#950 is no token",
]


def test_every_space_unicode_has_reads_as_a_space() -> None:
    """A secret after a no-break or any other Unicode space is found as after an ASCII one: the
    scanner maps every space separator Unicode lists (category Zs), and nothing else."""
    import sys
    import unicodedata

    from gitstore.safety.spans import _SPACES

    spaces = [code for code in range(sys.maxunicode + 1) if unicodedata.category(chr(code)) == "Zs" and code != 0x20]
    assert sorted(_SPACES) == spaces


def test_every_name_html_gives_an_ascii_character_is_decoded() -> None:
    """A secret's punctuation written by name (``&lowbar;``, ``&colon;``) is read as the character:
    the scanner knows every name HTML gives an ASCII character, and no other."""
    import html.entities

    from gitstore.safety.secrets import _NAMED

    ascii_names = {name[:-1]: character for name, character in html.entities.html5.items()
                   if name.endswith(";") and len(character) == 1 and ord(character) < 128}
    assert _NAMED == ascii_names


@pytest.mark.parametrize("text", NOT_OTHER_SHAPES)
def test_talk_about_those_shapes_is_kept(text: str) -> None:
    result = SCANNER.scan(text)
    assert result.findings == (), (text, result.findings)


# Credentials in Markdown tables and in columns: a key cell and the cell after it, a key and
# a value a tab or several spaces apart, are a key and its value as ``key: value`` is.
_DB_PASSWORD = "Xk9#mQ2vLp8$wR4nZt7"
IN_TABLES = {
    "aws-row": (f"| aws_secret_access_key | {AWS} |", "| aws_secret_access_key | [REDACTED:aws-secret-key] |"),
    "password-row": (f"| DB_PASSWORD | {_DB_PASSWORD} |", "| DB_PASSWORD | [REDACTED:credential-assignment] |"),
    "table-with-header": (f"| Name | Value |\n|---|---|\n| DB_PASSWORD | {_DB_PASSWORD} |\n| user | admin |",
                          "| Name | Value |\n|---|---|\n| DB_PASSWORD | [REDACTED:credential-assignment] |\n| user | admin |"),
    "tight-cells": (f"|api_key|{OTHER}|", "|api_key|[REDACTED:credential-assignment]|"),
    "code-span-cells": (f"| `API_TOKEN` | `{URLSAFE}` |", "| `API_TOKEN` | `[REDACTED:credential-assignment]` |"),
    "several-columns": (f"| prod | client_secret | {URLSAFE} | rotated |",
                        "| prod | client_secret | [REDACTED:credential-assignment] | rotated |"),
    "tab": (f"aws_secret_access_key\t{AWS}", "aws_secret_access_key\t[REDACTED:aws-secret-key]"),
    "spaces": (f"aws_secret_access_key    {AWS}", "aws_secret_access_key    [REDACTED:aws-secret-key]"),
    "tab-separated-row": (f"prod\tDB_PASSWORD\t{_DB_PASSWORD}\n", "prod\tDB_PASSWORD\t[REDACTED:credential-assignment]\n"),
    "aligned-columns": (f"NAME          VALUE\nsigning_key   {OTHER}\n", "NAME          VALUE\nsigning_key   [REDACTED:credential-assignment]\n"),
    "word-and-pipe": (f"| Token (prod) | {URLSAFE} |", "| Token (prod) | [REDACTED:credential-assignment] |"),
    "snake-case-name-in-prose": (f"the aws_secret_access_key is {AWS}", "the aws_secret_access_key is [REDACTED:aws-secret-key]"),
    # the value is the whole cell, up to the pipe closing it
    "struck-out-old-value": ("| DB_PASSWORD | ~~OldPass#2023~~ NewPass#2024x |",
                             "| DB_PASSWORD | [REDACTED:credential-assignment] |"),
    "value-with-a-space": ("| password | Xk9#mQ2 $vL7p |", "| password | [REDACTED:credential-assignment] |"),
    # a key cell in emphasis, with a colon or a word in parentheses; a value in a code span
    "bold-key": (f"| **DB_PASSWORD** | {_DB_PASSWORD} |", "| **DB_PASSWORD** | [REDACTED:credential-assignment] |"),
    "italic-key": (f"| *password* | {_DB_PASSWORD} |", "| *password* | [REDACTED:credential-assignment] |"),
    "underscored-key": (f"| __api_key__ | {OTHER} |", "| __api_key__ | [REDACTED:credential-assignment] |"),
    "key-with-colon": (f"| Password: | {_DB_PASSWORD} |", "| Password: | [REDACTED:credential-assignment] |"),
    "bold-key-with-colon": (f"| **Password:** | {_DB_PASSWORD} |", "| **Password:** | [REDACTED:credential-assignment] |"),
    "key-with-a-qualifier": (f"| password (prod) | {_DB_PASSWORD} |", "| password (prod) | [REDACTED:credential-assignment] |"),
    "value-in-code": (f"| password | `{_DB_PASSWORD}` |", "| password | `[REDACTED:credential-assignment]` |"),
    "spaced-value-in-code": ("| **password** | `Xk9#mQ2 $vL7p` |", "| **password** | `[REDACTED:credential-assignment]` |"),
    # a cell opening with a placeholder, a struck-out or parenthesised word or linking words
    "struck-out-placeholder": ("| password | ~~changeme~~ NewPass#2024x |", "| password | [REDACTED:credential-assignment] |"),
    "placeholder-then-secret": ("| password | changeme NewPass#2024x |", "| password | [REDACTED:credential-assignment] |"),
    "parenthesised-note-first": ("| password | (prod) Xk9#mQ2vL7pR4 |", "| password | [REDACTED:credential-assignment] |"),
    "linking-words-first": ("| password | changed to Xk9#mQ2vL7pR4 |", "| password | [REDACTED:credential-assignment] |"),
    "old-then-new": ("| password | old NewPass#2024x |", "| password | [REDACTED:credential-assignment] |"),
    "notes-first": ("| DB_PASSWORD | (prod) (eu) Kx9#mQ2zLp |", "| DB_PASSWORD | [REDACTED:credential-assignment] |"),
    "struck-out-note-first": ("| password | ~~(prod)~~ Kx9#mQ2zLp |", "| password | [REDACTED:credential-assignment] |"),
    "bracketed-note-first": ("| password | [prod] Kx9vQ2mZ7rT4wL8pN3sB |", "| password | [REDACTED:credential-assignment] |"),
    "bracketed-notes-first": ("| DB_PASSWORD | [prod] (eu) Kx9#mQ2zLp |", "| DB_PASSWORD | [REDACTED:credential-assignment] |"),
    "note-around-the-value": ("| password | (Kx9#mQ2zLp) |", "| password | [REDACTED:credential-assignment] |"),
}


@pytest.mark.parametrize(("text", "expected"), IN_TABLES.values(), ids=list(IN_TABLES))
def test_credentials_in_tables_and_columns_are_redacted(text: str, expected: str) -> None:
    result = SCANNER.scan(text)
    assert not result.quarantined
    assert result.text == expected


_KEY_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDW8OVrrcJ/rZxZ"


def _rows(text: str) -> str:
    """TEXT laid out as a one-column Markdown table, a row a line."""
    return "| line |\n|---|\n" + "".join(f"| {line} |\n" for line in text.splitlines())


def test_a_private_key_laid_out_in_table_rows_is_redacted() -> None:
    import base64

    key = "-----BEGIN EC PRIVATE KEY-----\n" + f"{_KEY_BODY}\n" * 4 + "-----END EC PRIVATE KEY-----\n"
    result = SCANNER.scan(_rows(key))
    assert result.text == "| line |\n|---|\n| [REDACTED:pem-private-key] |\n"
    cut_off = SCANNER.scan(_rows(key.rsplit("-----END", 1)[0]))
    assert "MIIEvQ" not in cut_off.text
    wrapped = base64.encodebytes(key.encode()).decode()  # lines of 76 characters
    blob = SCANNER.scan(_rows(wrapped))
    assert [f.kind for f in blob.findings] == ["pem-private-key"]
    assert blob.text == "| line |\n|---|\n| [REDACTED:pem-private-key] |\n"


NOT_IN_TABLES = [
    "| Setting | Meaning |\n|---|---|\n| token | the token the bot signs in with |\n| password | never stored |",
    "| name | type | description |\n|---|---|---|\n| api_key | string | Your API key, from the console |",
    "| secret_key | `${SECRET_KEY}` |\n| api_token | <your token here> |\n| password | changeme |",
    "| Secret | Rotated | Owner |\n|---|---|---|\n| prod-db | 2024-01-01 | alice |",
    "| access_token | expires_in | token_type |\n| (opaque) | 3600 | bearer |",
    "options:\n  --token TOKEN       the token to sign in with\n  --password-file PATH  read the password from PATH",
    "NAME                  TYPE                                  DATA   AGE\n"
    "default-token-x7k2p   kubernetes.io/service-account-token   3      10d",
    "secret\tsecrets/prod.env\ntoken\tGITHUB_TOKEN\npassword\t********",
    "| aws_secret_access_key | wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY |",
    "| token | ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx |",
    f"| commit | {HEX} |\n| secret rotation | done |",
    "| key | value |\n|-----|-------|\n| private_key | ~/.ssh/id_ed25519 |\n| api_key_id | 7c1d2e3f-4a5b-6c7d-8e9f-0a1b2c3d4e5f |",
    "| **Password:** | the one in the team vault |\n| *token* | rotated every night by the deploy job |",
    "| password (prod) | `${DB_PASSWORD}` |\n| secret | ~~old~~ new |",
    # code in aligned columns: fields and their types, pointers, references, slices, qualified names
    "type Signer struct {\n\tPrivateKey  *rsa.PrivateKey\n\tsecretKey  *kms.Key\n\tclientSecret   *oauth2.Config\n"
    "\tSessionToken  *sts.Credentials\n\tAPIKeys       []string\n\tsigningKey    ed25519.PrivateKey\n"
    "\tTokenSource   oauth2.TokenSource\n\tPassword      string `json:\"password\"`\n\tsecret        &Secret{}\n}",
    "type Config struct {\n    AccessToken   **oauth2.Token\n    privateKey    *ecdsa.PrivateKey // set by Load\n}",
    "pub struct Client {\n    api_key:      SecretString,\n    signing_key:  &'a ed25519_dalek::SigningKey,\n"
    "    token:        Option<Box<dyn TokenProvider>>,\n    private_key   : rsa::RsaPrivateKey,\n}\n"
    "let session_token  = &credentials.session_token;\nlet secret_key     = *config.secret_key;",
    "interface Credentials {\n  accessToken:    string;\n  privateKey:     crypto.KeyObject;\n"
    "  apiKey          : ApiKey.Value;\n}\nconst secretKey   = process.env.SECRET_KEY;",
    "| Field | Type |\n|---|---|\n| `PrivateKey` | `*rsa.PrivateKey` |\n| SessionToken | *sts.Credentials |",
    # an API's parameters and their types
    "| name | type | default |\n|---|---|---|\n| token | Optional[str] | None |\n| api_key | list[str] | keys |\n"
    "| secret | Dict[str, Any] | |\n| password | Union[str, bytes] |\n| `token` | `Optional[str]` |\n"
    "| `client_secret` | `Optional[str] \\| None` |\n| private_key | Map<String, Object> |\n"
    "| signing_key | typing.Mapping[str, List[int]] |",
    "| secret | ~~old~~ new |\n| password | rotated on 2024-01-01T10:00Z |\n| token | the one in the vault |",
    # a cell opening with a note about the parameter: the note is passed over, the rest judged
    "| name | type | description |\n|---|---|---|\n| password | (optional) string | x |\n"
    "| API_KEY | (required) your key | x |\n| password | (deprecated) use `secret` instead | x |\n"
    "| token | ~~(optional)~~ string | x |\n| secret | [optional] string | x |\n| password | (optional) |",
    "| password | *(required)* str | x |\n| api_key | Optional[str], default None | x |\n"
    "| token | Literal[\"bearer\", \"basic\"] | x |\n| mode | Literal['a', 'b'] |\n| secret | str, optional |",
]


@pytest.mark.parametrize("text", NOT_IN_TABLES)
def test_tables_and_columns_of_names_placeholders_and_examples_are_kept(text: str) -> None:
    result = SCANNER.scan(text)
    assert result.findings == (), (text, result.findings)


@pytest.mark.parametrize("text", [
    "DB_PASSWORD=*Kx9.Qm2",
    "PGPASSWORD=*Winter2025.x",
    "| DB_PASSWORD | *Summer2024.Fall |",
    "api_secret: *Xk9mQ2vLp8wR4nZt7",
])
def test_a_value_behind_a_star_is_judged_as_any_other(text: str) -> None:
    """Only a pointer to a named type (``*rsa.PrivateKey``) is a name: a star before random
    characters hides nothing."""
    result = SCANNER.scan(text)
    assert [f.kind for f in result.findings] == ["credential-assignment"], text


# Unquoted values with a dot in them, as ``cat .env`` prints them and people paste them: the
# dot makes them look like a member reference (``config.password``), but a part that mixes
# cases and digits at random names no member.
_YA29 = "ya" + "29.DNxril3RavGD5MfvJ7NScUykT8C8UBkkpdhiG37LeXSyYV4g6snRoUYA4fXr"
DOTTED_SECRETS = {
    "google-oauth": (f"ACCESS_TOKEN={_YA29}", _YA29[5:]),
    "google-oauth-in-url": (f"GET https://www.googleapis.com/drive/v3/files?access_token={_YA29}", _YA29[5:]),
    "discord": ("DISCORD_TOKEN=MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs", "MTk4NjIyNDgz"),
    "prefixed-secret": ("secret_key=prod.Xk9mQ2vL7pR4tY8wZ3nB6cF1hJ5kM0sD4gA7eU2i", "Xk9mQ2vL7pR4"),
    "prefixed-password": ("DB_PASSWORD=Prod.Xk9mQ2vL7pR4tY8w", "Xk9mQ2vL7pR4"),
    "client-secret": ("client_secret=GOCSPX.Xk9mQ2vL7pR4tY8wZ3nB6cF1hJ5k", "Xk9mQ2vL7pR4"),
    "export": ("export API_TOKEN=live.Xk9mQ2vL7pR4tY8wZ3nB6cF1hJ5kM0sD4gA7eU2i", "Xk9mQ2vL7pR4"),
    "env-file": ("$ cat .env\nDEBUG=false\nACCESS_TOKEN=prod.Zq8WkX3mPv7RtY2nLs9BcD4f\n", "Zq8WkX3mPv7R"),
}


@pytest.mark.parametrize(("text", "material"), DOTTED_SECRETS.values(), ids=list(DOTTED_SECRETS))
def test_an_unquoted_value_with_a_dot_is_judged_by_its_parts(text: str, material: str) -> None:
    result = SCANNER.scan(text)
    assert not result.quarantined
    assert result.redactions >= 1, text
    assert material not in result.text


@pytest.mark.parametrize("text", [
    "password = config.password",
    "DB_PASSWORD=settings.DB_PASSWORD",
    "API_KEY=os.environ.API_KEY",
    "secret_key = self.secret_key",
    "token=request.headers.Authorization",
    "api_key=self.clientId",
    "secret_key=app.utf8Decoder.secretKey",
    "api_key=Settings::apiKey",
    "access_token=ctx->accessToken",
    "api_key=this.s3Bucket.apiKey",
])
def test_an_unquoted_member_reference_is_kept(text: str) -> None:
    result = SCANNER.scan(text)
    assert result.findings == (), (text, result.findings)


# Some services issue tokens shaped as UUIDs (npm's legacy tokens, Heroku's API keys, some
# OAuth client secrets): under a key naming a credential a UUID is the credential, not an id.
_UUID = "e990afec-468a-4e24-b2de-c564f5eb04d8"
UUID_CREDENTIALS = {
    "npm-legacy-token": f"//registry.npmjs.org/:_authToken={_UUID}",
    "heroku-api-key": f"HEROKU_API_KEY={_UUID}",
    "client-secret": f"client_secret={_UUID}",
    "quoted-password": f'"password": "{_UUID}"',
    "netrc-one-line": f"machine api.heroku.com login me@example.com password {_UUID}",
    "netrc-lines": f"machine api.heroku.com\n  login me@example.com\n  password {_UUID}\n",
    "session-token": f'"sessionToken": "{_UUID}"',
    "csrf-token": f"csrf_token={_UUID}",
    "client-token-secret": f'"client_token_secret": "{_UUID}"',
}


@pytest.mark.parametrize("text", UUID_CREDENTIALS.values(), ids=list(UUID_CREDENTIALS))
def test_a_uuid_under_a_credential_key_is_redacted(text: str) -> None:
    result = SCANNER.scan(text)
    assert not result.quarantined
    assert _UUID not in result.text, result.text


@pytest.mark.parametrize("text", [
    f"client_id={_UUID}",
    f"request_id={_UUID}\ntrace_id: {_UUID}",
    f'key_id = "{_UUID}"\n"api_key_id": "{_UUID}"\ntoken_id: {_UUID}',
    f"the key id is {_UUID}",
    "machine github.com login alice password $GITHUB_TOKEN",
    "the machine learning password field must be hashed",
])
def test_a_uuid_under_an_id_key_is_kept(text: str) -> None:
    result = SCANNER.scan(text)
    assert result.findings == (), (text, result.findings)


# Tokens that name a request, a page or a trace are ids handed back and forth, not
# credentials: AWS's idempotency ClientToken, paging and sync cursors, correlation ids.
@pytest.mark.parametrize("text", [
    f'{{"ClientToken": "{_UUID}", "InstanceId": "i-0abc"}}',
    f'"ClientRequestToken": "{_UUID}"\nIdempotencyToken: {_UUID}\nX-Idempotency-Token: {_UUID}',
    f'{{"continuationToken": "{_UUID}", "pageToken": "{_UUID}", "nextToken": "{_UUID}"}}',
    f'"syncToken": "{_UUID}"\n"correlationToken": "{_UUID}"\n"cancellation_token": "{_UUID}"',
    f"trace token: {_UUID}",
    f"RequestToken={_UUID}",
])
def test_a_uuid_under_a_token_naming_a_request_or_a_page_is_kept(text: str) -> None:
    result = SCANNER.scan(text)
    assert result.findings == (), (text, result.findings)


# Registry credentials stored as base64 of ``user:password`` under an ``auth`` key: Docker's
# ~/.docker/config.json (and GitLab's DOCKER_AUTH_CONFIG), npm's ``_auth``.
_DOCKER_AUTH = "ZGVwbG95OlBrMjl4TG1RN3ZSdDRac1c="  # deploy:Pk29xLmQ7vRt4ZsW
AUTH_CREDENTIALS = {
    "docker-config": '{"auths": {"registry.acme.io": {"auth": "' + _DOCKER_AUTH + '"}}}',
    "docker-config-lines": '{\n  "auths": {\n    "ghcr.io": {\n      "auth": "' + _DOCKER_AUTH + '"\n    }\n  }\n}',
    "gitlab-variable": 'DOCKER_AUTH_CONFIG={"auths":{"registry.acme.io":{"auth":"' + _DOCKER_AUTH + '"}}}',
    "npmrc": f"//registry.acme.io/:_auth={_DOCKER_AUTH}",
    "npmrc-bare": f"_auth = {_DOCKER_AUTH}",
    "basic-auth-key": "basic_auth: deploy:Pk29xLmQ7vRt4ZsW",
}


@pytest.mark.parametrize("text", AUTH_CREDENTIALS.values(), ids=list(AUTH_CREDENTIALS))
def test_a_registry_auth_is_redacted(text: str) -> None:
    result = SCANNER.scan(text)
    assert not result.quarantined
    assert _DOCKER_AUTH not in result.text and "Pk29xLmQ7vRt4ZsW" not in result.text, result.text


@pytest.mark.parametrize("text", [
    '{"auth": "basic", "oauth": "Xk9vR2mQ7pL4wZ8n", "credsStore": "desktop"}',
    "auth: true\nauth: none\nauth = get_auth(user, password)\nauth: ${REGISTRY_AUTH}",
    "OAuth: Xk9vR2mQ7pL4wZ8n",
    "auth_method: oauth2\nauth: process.env.REGISTRY_AUTH",
])
def test_auth_keys_holding_no_credential_are_kept(text: str) -> None:
    result = SCANNER.scan(text)
    assert result.findings == (), (text, result.findings)


# Keys that name a password in short (``DB_PASS``, ``REDIS_PWD``, ``ADMIN_PW``) or credentials
# as a whole, and commands taking a password or token as an option.
_PASS = "Hs83jKq0Lm2Nx7Vd"
SHORT_KEYS = {
    "env-pass": f"DB_PASS={_PASS}",
    "export-pass": f"export DB_PASS='{_PASS}'",
    "redis-pwd": f"REDIS_PWD={_PASS}",
    "admin-pw": f"ADMIN_PW={_PASS}",
    "smtp-pass-quoted": f'SMTP_PASS="{_PASS}"',
    "docker-run-env": f"docker run --rm -e DB_PASS={_PASS} app",
    "php": f"$db_pass = '{_PASS}';",
    "dict-pass": f"{{'user': 'app', 'pass': '{_PASS}'}}",
    "yaml-pwd": f"db:\n  user: app\n  pwd: {_PASS}\n",
    "camel-pass": f"const dbPass = '{_PASS}';",
    "credentials": f"MY_APP_CREDENTIALS={_PASS}",
    "creds": f"DB_CREDS={_PASS}",
    "secret-string": f'{{"Name": "prod/db", "SecretString": "{_PASS}", "VersionStages": ["AWSCURRENT"]}}',
    "rails-secret-key-base": "production:\n  secret_key_base: " + "b1360aff9a194d9db49610f59d9deaa05f0feb170f36557c3cd780672bd973be" * 2,
    "redis-cli": f"redis-cli -h cache.acme.io -a {_PASS} ping",
    "kubeadm-join": "kubeadm join 10.0.0.5:6443 --token 9a08jv.c0izixklcxtmnze7 --discovery-token-ca-cert-hash sha256:ab",
    "twine": f"twine upload -u deploy -p {_PASS} dist/*",
    "doctl": f"doctl auth init -t {_PASS}",
}


@pytest.mark.parametrize("text", SHORT_KEYS.values(), ids=list(SHORT_KEYS))
def test_short_password_keys_and_command_options_are_redacted(text: str) -> None:
    result = SCANNER.scan(text)
    assert not result.quarantined
    assert result.redactions >= 1, text
    assert _PASS not in result.text and "c0izixklcxtmnze7" not in result.text and "9deaa05f0feb" not in result.text


@pytest.mark.parametrize("text", [
    "pwd: /srv/app/project\nPWD=/srv/app",
    "pass: true\nunit_pass: false",
    f"compass={_PASS}\nbypass={_PASS}\nsurpass: {_PASS}",
    "rsync --pass-through src dst\nmake pass=2",
    "credentials: include\ncredentials = service_account.Credentials.from_service_account_file(path)",
    "if ok: pass\nelse: raise",
    "redis-cli -h cache.acme.io ping; ls -a /tmp",
    "kubeadm join 10.0.0.5:6443 --token $TOKEN",
])
def test_words_ending_in_pass_and_pw_that_name_no_password_are_kept(text: str) -> None:
    result = SCANNER.scan(text)
    assert result.findings == (), (text, result.findings)


# A password given its option a space apart, whatever the command, and the options of commands
# that take one by a letter or in their arguments' order.
OPTION_PASSWORDS = {
    "svn": f"svn checkout https://svn.acme.io/repo --username bob --password {_PASS}",
    "mongodump": f"mongodump --username root --password {_PASS} --db app",
    "mysql-spaced-long": f"mysql -u root --password {_PASS} shop",
    "wget": f"wget --http-password {_PASS} https://files.acme.io/a.tgz",
    "gpg": f"gpg --batch --passphrase {_PASS} -d notes.gpg",
    "prefixed": f"./deploy.sh --db-password '{_PASS}' --env prod",
    "api-key": f"acme-cli --api-key {_PASS} deploy",
    "client-secret": f'oidc-login --client-id app --client-secret "{_PASS}"',
    "keytool": f"keytool -genkey -alias app -storepass {_PASS} -keypass {_PASS}",
    "influx": f"influx -username admin -password {_PASS}",
    "curl-bearer": f"curl --oauth2-bearer {_PASS} https://api.acme.io",
    "ldapsearch": f"ldapsearch -x -D cn=admin,dc=acme -w {_PASS} -b dc=acme",
    "az-login": f"az login -u bob@acme.io -p {_PASS}",
    "mongosh": f"mongosh -u root -p {_PASS} --authenticationDatabase admin",
    "sqlcmd": f"sqlcmd -S db -U sa -P {_PASS} -Q 'SELECT 1'",
    "cqlsh": f"cqlsh -u cassandra -p {_PASS} db.acme.io",
    "zip": f"zip -P {_PASS} backup.zip db.sql",
    "unzip": f"unzip -P {_PASS} backup.zip",
    "7z": f"7z a -p{_PASS} backup.7z db.sql",
    "ssh-keygen-new": f"ssh-keygen -t ed25519 -N {_PASS} -f deploy_key",
    "ssh-keygen-old": f"ssh-keygen -p -P {_PASS} -N '' -f deploy_key",
    "openssl-enc": f"openssl enc -aes-256-cbc -k {_PASS} -in db.sql -out db.enc",
    "smbclient": f"smbclient //files/share -U bob%{_PASS}",
    "lftp": f"lftp -u bob,{_PASS} ftp.acme.io",
    "htpasswd": f"htpasswd -b .htpasswd bob {_PASS}",
    "htpasswd-stdout": f"htpasswd -nbB bob {_PASS}",
    "rabbitmqctl": f"rabbitmqctl add_user bob {_PASS}",
    "gh-secret": f"gh secret set DEPLOY_TOKEN --body {_PASS}",
    "vault": f"vault login {_PASS}",
    "minio-client": f"mc alias set store http://minio.acme.io:9000 admin {_PASS}",
    "sqlplus": f"sqlplus -s scott/{_PASS}@//db.acme.io:1521/orcl",
    "rman": f"rman target sys/{_PASS}@prod",
    "sudo-stdin": f"echo '{_PASS}' | sudo -S apt-get install -y nginx",
    "sudo-user-stdin": f"echo -n {_PASS} | sudo -u root -S cat /etc/shadow",
    "password-stdin": f"echo {_PASS} | docker login ghcr.io -u bob --password-stdin",
    "with-token": f"printf '%s' {_PASS} | gh auth login --with-token",
    "chpasswd": f"echo bob:{_PASS} | chpasswd",
    "az-devops-login": f"echo {_PASS} | az devops login --organization https://dev.azure.com/acme",
    "net-use-share-first": f"net use \\\\files\\share {_PASS} /user:ACME\\bob",
    "net-use-user-first": f"net use Z: \\\\files\\share /user:bob {_PASS} /persistent:no",
    "net-use-quoted": f'NET USE Z: "\\\\files\\my share" "{_PASS}" /USER:"ACME\\bob"',
    "net-user": f"net user bob {_PASS} /add",
    "psexec": f"PsExec64.exe \\\\build01 -u ACME\\bob -p {_PASS} cmd /c dir",
    "schtasks": f"schtasks /create /tn backup /tr C:\\b.bat /sc daily /RU bob /RP {_PASS}",
    "schtasks-remote": f"schtasks /query /s build01 /u bob /p {_PASS}",
    "cmdkey": f"cmdkey /add:files /user:bob /pass:{_PASS}",
    "redis-conf": f"requirepass {_PASS}",
    "redis-config-set": f'redis-cli CONFIG SET masterauth "{_PASS}"',
    "setx": f"setx DB_PASSWORD {_PASS} /M",
    "fish-set": f"set -gx API_TOKEN {_PASS}",
    "sshpass-env": f"SSHPASS='{_PASS}' sshpass -e ssh bob@host",
    "wpa-psk": f'network={{\n  ssid="home"\n  psk="{_PASS}"\n}}',
    "nmcli": f"nmcli dev wifi connect home password {_PASS}",
    "nmcli-psk": f"nmcli con modify home wifi-sec.psk {_PASS}",
    "jenkins-cli": f"java -jar jenkins-cli.jar -s https://ci.acme.io -auth admin:{_PASS} build job",
}
_SLASHED = "/" + _PASS + "!"  # a password opening with a slash, which reads as no switch's name
SLASHED_PASSWORDS = {
    "net-use-last": f"net use \\\\host\\share /user:me {_SLASHED}",
    "net-use-first": f"net use Z: \\\\host\\share {_SLASHED} /user:ACME\\bob /persistent:no",
    "net-use-quoted-user": f'net use Z: \\\\host\\share /user:"ACME\\bob" {_SLASHED} /savecred',
    "net-user": f"net user bob {_SLASHED} /add",
    "schtasks": f"schtasks /create /tn backup /tr C:\\b.bat /RU bob /RP {_SLASHED} /sc daily",
}


@pytest.mark.parametrize("text", SLASHED_PASSWORDS.values(), ids=list(SLASHED_PASSWORDS))
def test_a_windows_password_opening_with_a_slash_is_redacted(text: str) -> None:
    assert SCANNER.scan(text).text == text.replace(_SLASHED, "[REDACTED:command-password]")


@pytest.mark.parametrize("text", OPTION_PASSWORDS.values(), ids=list(OPTION_PASSWORDS))
def test_passwords_given_to_command_line_options_are_redacted(text: str) -> None:
    result = SCANNER.scan(text)
    assert _PASS not in result.text, result.text
    assert result.text.split("[REDACTED:")[0] == text.split(_PASS)[0].removesuffix("bob:")  # the value alone


@pytest.mark.parametrize("text", [
    "ansible-playbook --ask-pass site.yml\nansible-playbook --ask-vault-pass deploy.yml",
    "python manage.py createsuperuser --no-password admin\nacme-admin --reset-password alice",
    "docker login -u bob --password-stdin ghcr.io\ntool --token $GITHUB_TOKEN\ntool --token ${{ secrets.TOKEN }}",
    "tool --password PASSWORD\ntool --password <your-password>\ntool --token YOUR_TOKEN_HERE",
    "tool --password-file /run/secrets/db --secret-key-file key.txt --ssh-key ~/.ssh/id_ed25519",
    "rsync --pass-through a b\ntool --bypass Hs83jKq0Lm2Nx7Vd\nls -xtoken Hs83jKq0Lm2Nx7Vd",
    "unzip -p backup.zip Hs83jKq0Lm2Nx7Vd.txt\nssh-keygen -s ca -n Hs83jKq0Lm2Nx7Vd key.pub\nldapsearch -W -b dc=acme",
    "echo Hs83jKq0Lm2Nx7Vd | base64\necho \"$PASS\" | sudo -S true\nvault login -method=github",
    "aws s3api list-objects --bucket b --page-token abc --next-token def\nssh-keygen -N '' -f key",
    "sqlplus / as sysdba\nsqlplus scott@orcl @report.sql\nmc alias set store http://minio:9000 $AK $SK",
    "the options (`--password`, `--http-passwd`, `--passphrase`, `--client-secret`, `--api-key`) all take one",
    "net use Z: \\\\files\\share * /user:bob\nnet use Z: \\\\files\\share /user:bob *\nnet use Z: /delete /y",
    'net use \\\\files\\ipc$ "" /user:""\nnet use Z: \\\\files\\share /persistent:yes >nul 2>&1',
    "net use Z: \\\\files\\share %SHARE_PASSWORD% /user:bob\nnet use Z: \\\\files\\share $env:SHARE_PASS",
    "net user bob /add\nnet user bob * /domain\nnet user\nrunas /user:ACME\\bob cmd",
    "echo $AZURE_DEVOPS_EXT_PAT | az devops login\necho Hs83jKq0Lm2Nx7Vd | az devops project list",
    "psexec \\\\build01 -u bob -s cmd\nschtasks /create /tn backup /sc daily /RU SYSTEM /RP *",
    "the net use command takes the password after the share; see `net user /?`",
    "net use Z: \\\\files\\share /user:me /savecred /persistent:no /tcpport:445 /y\nnet use \\\\f\\s /user:me /Secret",
    "net user bob /times:M-F,08:00-17:00 /domain /expires:never\nschtasks /create /tn b /RU bob /RP /SC daily",
    "requirepass $REDIS_PASSWORD\n# requirepass foobared\nsetx DB_PASSWORD %DB_PASSWORD%\nset -x PATH /usr/bin $PATH",
    "set the password to something strong\noffset password Hs83jKq0Lm2Nx7Vd",
    'java -jar jenkins-cli.jar -auth @/run/secrets/jenkins build\nnmcli dev wifi connect home password "$WIFI_PW"',
    "sshpass -e ssh bob@host\nthe psk is a pre-shared key; set psk=<your-psk>\ncompass=Hs83jKq0Lm2Nx7Vd",
])
def test_command_line_options_that_hold_no_password_are_kept(text: str) -> None:
    result = SCANNER.scan(text)
    assert "command-password" not in result.text, result.text


@pytest.mark.parametrize("text", [
    f'echo "db.acme.io:5432:app:appuser:{_PASS}" >> ~/.pgpass',
    f"cat > ~/.pgpass <<'EOF'\ndb.acme.io:5432:app:appuser:{_PASS}\n*:*:*:postgres:{_PASS}\nEOF\nchmod 600 ~/.pgpass",
    f"echo 'localhost:*:*:app:{_PASS[:4]}\\:{_PASS[4:]}' | tee -a ~/.pgpass",
    f'export PGPASSFILE=/tmp/pg && printf "%s\\n" "db:5432:app:app:{_PASS}" > $PGPASSFILE',
])
def test_a_pgpass_line_written_into_the_file_has_its_password_redacted(text: str) -> None:
    result = SCANNER.scan(text)
    assert _PASS[4:] not in result.text, result.text
    assert "db.acme.io:5432:app:appuser:[REDACTED" in result.text or "app:[REDACTED" in result.text


@pytest.mark.parametrize("text", [
    'echo "db:5432:app:app:$PGPASSWORD" >> ~/.pgpass',
    "echo 'hostname:port:database:username:password' >> ~/.pgpass",
    f"db.acme.io:5432:app:appuser:{_PASS}",  # the shape alone, no .pgpass named
])
def test_a_pgpass_line_without_a_password_or_without_the_file_is_kept(text: str) -> None:
    assert SCANNER.scan(text).text == text


# Credentials code and configuration commands give by place, not after a key's ``=``.
PLACED_CREDENTIALS = {
    "requests-auth": f'requests.get(url, auth=("bob", "{_PASS}"))',
    "basic-auth-class": f"session.auth = HTTPBasicAuth('bob', '{_PASS}')",
    "network-credential": f'var credential = new NetworkCredential("bob", "{_PASS}");',
    "secure-string": f"$pw = ConvertTo-SecureString '{_PASS}' -AsPlainText -Force",
    "secure-string-named": f'ConvertTo-SecureString -String "{_PASS}" -AsPlainText -Force',
    "terraform-default": f'variable "db_password" {{\n  type      = string\n  default   = "{_PASS}"\n}}',
    "aws-configure": f"aws configure set aws_secret_access_key {_PASS}",
    "npm-config": f"npm config set //registry.npmjs.org/:_authToken {_PASS}",
    "yarn-config": f"yarn config set npmAuthToken {_PASS}",
    "git-config": f"git config --global github.token {_PASS}",
    "user-secrets": f'dotnet user-secrets set "Db:Password" "{_PASS}"',
    "poetry-http-basic": f"poetry config http-basic.pypi __token__ {_PASS}",
    "composer-http-basic": f"composer config http-basic.repo.acme.io bob {_PASS}",
    "nuget-config": f'<packageSourceCredentials><acme><add key="Username" value="bob" />'
                    f'<add key="ClearTextPassword" value="{_PASS}" /></acme></packageSourceCredentials>',
    "web-config": f'<appSettings>\n  <add key="Stripe:SecretKey" value="{_PASS}"/>\n</appSettings>',
    "spring-property": f'<property name="password" value="{_PASS}"/>',
    "java-xml-properties": f'<entry key="jdbc.password">{_PASS}</entry>',
    "dotnet-setting": f'<setting name="SmtpPassword" serializeAs="String">\n  <value>{_PASS}</value>\n</setting>',
}


@pytest.mark.parametrize("text", PLACED_CREDENTIALS.values(), ids=list(PLACED_CREDENTIALS))
def test_credentials_given_by_place_are_redacted(text: str) -> None:
    result = SCANNER.scan(text)
    assert _PASS not in result.text, result.text
    assert result.text.split("[REDACTED:")[0] == text.split(_PASS)[0]  # the value alone


@pytest.mark.parametrize("text", [
    'variable "region" {\n  default = "eu-west-1x9"\n}\nvariable "db_password" {\n  sensitive = true\n}',
    'requests.get(url, auth=("bob", os.environ["PW"]))\nauth=("bob", "$PASSWORD")\nauthor=("Ann", "Hs83jKq0Lm2Nx7Vd")',
    "git config --global user.name Bob9Smith\ngit config credential.helper store\naws configure set region eu-west-1",
    "npm config set //registry.npmjs.org/:_authToken ${NPM_TOKEN}\npoetry config http-basic.pypi __token__",
    "ConvertTo-SecureString $plain -AsPlainText\nreconfigure set token_ttl 3600s",
    '<property name="password" value="${db.password}"/>\n<add key="ClearTextPassword" value="%NUGET_PASSWORD%" />',
    '<input type="password" name="password" value="" />\n<entry key="token.ttl">3600</entry>\n'
    '<label for="password">Password</label><input name="password"> Remember me',
])
def test_values_placed_where_no_credential_goes_are_kept(text: str) -> None:
    assert SCANNER.scan(text).text == text


def test_a_telegram_bot_token_in_an_api_url_is_redacted() -> None:
    token = "2689971973" + ":AA8ODDWrMGpMJE_U-S296-5zBQ4TGLQjV20"
    result = SCANNER.scan(f"curl https://api.telegram.org/bot{token}/getUpdates")
    assert result.text == "curl https://api.telegram.org/[REDACTED:telegram-bot-token]/getUpdates"


_PPK_LINES = ["2qPQCMtdzKuBqCEl884fSscJNCOeyR76rWIHcQjsuIa4Xjn/llbPFnIoGHp3YguH",
              "f8xTTWI+91m8Apbu8eIyH8ZIz1L9CDA7IhzJBtLm2zHLGyOkxUUzJo3xMa6CPD0F", "T4EItlihUVBXIFHOem9b"]


def test_the_private_lines_of_a_putty_key_file_are_redacted() -> None:
    ppk = ("PuTTY" + "-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy@ci\nPublic-Lines: 2\n"
           "AAAAC3NzaC1lZDI1NTE5AAAAIBVrR6y3mTCPZ3zJ6mUmV1Gxq0EjMz7Kq1F8Hc3w2aWF\nAAAA\n"
           "Private-Lines: 3\n" + "\n".join(_PPK_LINES) + "\nPrivate-MAC: 8a7c4b0e6d3f2a1b\n")
    result = SCANNER.scan(ppk)
    assert not result.quarantined
    assert all(line not in result.text for line in _PPK_LINES), result.text
    assert "Public-Lines: 2\nAAAAC3NzaC1lZDI1NTE5" in result.text and "Private-MAC: 8a7c4b0e6d3f2a1b" in result.text


@pytest.mark.parametrize("text", [
    "the monkey-0123456789abcdef0123456789abcdef is a cache key",
    "Shopify tokens start with shpat_ and Vault's with hvs.",
    "PMAK- keys come from Postman; AGE-SECRET-KEY-1 opens an age key",
    "at 12:30:AAA the job ran; ratio 100000:AAbc",
    "Private-Lines: 3 says how many lines follow",
])
def test_talk_about_newer_token_formats_is_kept(text: str) -> None:
    result = SCANNER.scan(text)
    assert result.findings == (), (text, result.findings)


@pytest.mark.parametrize("text", [
    "The auth token check must use ConstantTimeCompareTokensV2 instead of ==; the secret store client is "
    "AwsSecretsManagerClientV3.",
    "the secret store client is AwsS3SecretsManagerClientForProduction and the token parser is XMLHttpRequestParser",
    "api_key=self.apiKeyV2",
    "auth = HTTPBasicAuth(user, password)\npassword = HTTPBasicAuth(user, password)",
    "the token refresh fix is 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "the secret rotation landed in commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
])
def test_camel_case_names_with_versions_and_commits_next_to_credential_words_are_kept(text: str) -> None:
    result = SCANNER.scan(text)
    assert result.findings == (), (text, result.findings)


@pytest.mark.parametrize("text", [
    'password = "CorrectHorseV2"',
    "DB_PASS=WinterIsComing2024",
    "my token is 9fceb02d0ae598e95dc970b74767f19372d61af8",
])
def test_a_password_shaped_as_a_name_with_a_number_is_still_redacted(text: str) -> None:
    assert SCANNER.scan(text).redactions == 1, text


@pytest.mark.parametrize("text", [
    f"$ heroku auth:token\n›   Warning: token will expire 2025-01-01\n{_UUID}\n$ ls",
    f"npm config get //registry.npmjs.org/:_authToken\n{_UUID}",
])
def test_a_token_printed_by_a_command_that_prints_one_is_redacted(text: str) -> None:
    result = SCANNER.scan(text)
    assert _UUID not in result.text, result.text
    assert result.text.count("[REDACTED:") == 1


@pytest.mark.parametrize("text", [
    f"$ heroku apps:info\nid: {_UUID}",
    f"$ heroku auth:token\n$ heroku apps\n$ ls\n$ pwd\n$ cat ids\n{_UUID}",
    f"npm config get registry\n{_UUID}",
])
def test_a_uuid_after_other_commands_is_kept(text: str) -> None:
    result = SCANNER.scan(text)
    assert result.findings == (), (text, result.findings)


# A private key as tools print it: a line-numbered gutter before each line (a file reader's
# ``     2→``, ``cat -n``, ``grep -n``, bat's ``│``), a reply's quote marks, or the lines joined
# by spaces (``echo $KEY`` unquoted) or by ``<br>``.
_OPENSSH_BODY = [
    "c92P2+zHd3OC2pYwL82DeaGdyy8Yck0kF4nP47GiCpj7ZfZzp72dpiifA9SHEA8J",
    "MOE9mQfHdlNwl9cyhDujS38BqRV1p0do/43+7tcVtUFQwjqDSQcRkMQbZhvYSmIR",
    "9QTYrwA2Ne3pDXhg+rVlaxKQoTLHrEVWFk9VA/ZowuweIq1L0f8tXn3Ur7Bo2Yc9",
]
_KEY_LINES = ["-----BEGIN OPENSSH PRIVATE KEY-----", *_OPENSSH_BODY, "-----END OPENSSH PRIVATE KEY-----"]
DECORATED_KEYS = {
    "file-reader": "\n".join(f"{n:6}\u2192{line}" for n, line in enumerate(_KEY_LINES, 1)),
    "cat-n": "\n".join(f"{n:6}\t{line}" for n, line in enumerate(_KEY_LINES, 1)),
    "grep-n": "\n".join(f"id_rsa:{n}:{line}" for n, line in enumerate(_KEY_LINES, 1)),
    "bat": "\n".join(f"  {n:3} \u2502 {line}" for n, line in enumerate(_KEY_LINES, 1)),
    "vim-numbers": "\n".join(f"{n:>3} {line}" for n, line in enumerate(_KEY_LINES, 1)),
    "quoted-reply": "\n".join("> " + line for line in _KEY_LINES),
    "one-line": " ".join(_KEY_LINES),
    "html-breaks": "<br>".join(_KEY_LINES),
    "lowercase": "\n".join(line.lower() if line.startswith("-") else line for line in _KEY_LINES),
    "diff-added": "@@ -0,0 +1,5 @@\n" + "\n".join("+" + line for line in _KEY_LINES),
    "diff-removed": "@@ -1,5 +0,0 @@\n" + "\n".join("-" + line for line in _KEY_LINES),
}


@pytest.mark.parametrize("text", DECORATED_KEYS.values(), ids=list(DECORATED_KEYS))
def test_a_private_key_with_decorated_lines_is_redacted(text: str) -> None:
    result = SCANNER.scan(f"here it is:\n{text}\nthanks")
    assert [f.kind for f in result.findings] == ["pem-private-key"], text
    assert not any(line in result.text for line in _OPENSSH_BODY)
    assert result.text.endswith("\nthanks")


@pytest.mark.parametrize("name", ["file-reader", "cat-n", "grep-n", "bat", "quoted-reply", "html-breaks"])
def test_a_cut_off_private_key_with_decorated_lines_is_redacted(name: str) -> None:
    text = DECORATED_KEYS[name].rsplit(_OPENSSH_BODY[-1], 1)[0]
    result = SCANNER.scan(text)
    assert [f.kind for f in result.findings] == ["pem-private-key"], text
    assert not any(line in result.text for line in _OPENSSH_BODY[:2])


@pytest.mark.parametrize("text", [
    "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
    "     1\u2192-----BEGIN PRIVATE KEY-----\n     2\u2192<your key here>\n     3\u2192-----END PRIVATE KEY-----",
    "> -----BEGIN RSA PRIVATE KEY-----\n> (paste the key)\n> -----END RSA PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY----- MIIEvQIBADANBg... -----END PRIVATE KEY-----",
    'pem = "-----BEGIN PRIVATE KEY-----\\n" + base64.b64encode(der).decode() + "\\n-----END PRIVATE KEY-----"',
])
def test_private_key_placeholders_with_decorated_lines_are_kept(text: str) -> None:
    result = SCANNER.scan(text)
    assert result.findings == (), (text, result.findings)


def test_an_encrypted_private_key_without_its_begin_and_end_lines_is_redacted() -> None:
    armor = "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F17F5316E2BAC89\n\n"
    result = SCANNER.scan("the key file:\n" + armor + "\n".join(_OPENSSH_BODY) + "\n")
    assert result.text == "the key file:\n[REDACTED:pem-private-key]\n"
    whole = SCANNER.scan("-----BEGIN RSA PRIVATE KEY-----\n" + armor + "\n".join(_OPENSSH_BODY)
                         + "\n-----END RSA PRIVATE KEY-----")
    assert whole.text == "[REDACTED:pem-private-key]"


def test_encrypted_private_keys_one_after_another_are_each_redacted() -> None:
    armor = "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F17F5316E2BAC89\n\n"
    key = armor + "\n".join(_OPENSSH_BODY) + "\n"
    result = SCANNER.scan(key + key)
    assert result.text == "[REDACTED:pem-private-key]\n[REDACTED:pem-private-key]\n"


# JSON written inside a JSON string, its quotes escaped once (or again, a level deeper), as
# `aws secretsmanager get-secret-value` and kubectl's last-applied-configuration print it.
JSON_IN_JSON = {
    "secret-string": (
        '"SecretString": "{\\"username\\":\\"admin\\",\\"password\\":\\"Wq7rT2xZp9LmK4vB\\"}"',
        '"SecretString": "{\\"username\\":\\"admin\\",\\"password\\":\\"[REDACTED:credential-assignment]\\"}"',
    ),
    "last-applied": (
        '"kubectl.kubernetes.io/last-applied-configuration": "{\\"stringData\\": {\\"DB_PASSWORD\\": '
        '\\"Hs83jKq0Lm2Nx7Vd\\", \\"API_TOKEN\\": \\"Zq81mXc4Vb7Nw2Lp9Kj3Hg6F\\"}}\\n"',
        '"kubectl.kubernetes.io/last-applied-configuration": "{\\"stringData\\": {\\"DB_PASSWORD\\": '
        '\\"[REDACTED:credential-assignment]\\", \\"API_TOKEN\\": \\"[REDACTED:credential-assignment]\\"}}\\n"',
    ),
    "twice-escaped": (
        '{"body": "{\\"data\\": \\"{\\\\\\"password\\\\\\": \\\\\\"Wq7rT2xZp9LmK4vB\\\\\\"}\\"}"}',
        '{"body": "{\\"data\\": \\"{\\\\\\"password\\\\\\": \\\\\\"[REDACTED:credential-assignment]\\\\\\"}\\"}"}',
    ),
}


@pytest.mark.parametrize(("text", "expected"), JSON_IN_JSON.values(), ids=list(JSON_IN_JSON))
def test_a_secret_in_json_inside_a_json_string_is_redacted(text: str, expected: str) -> None:
    result = SCANNER.scan(text)
    assert result.text == expected


def test_the_name_of_a_secret_in_an_arn_is_kept() -> None:
    text = '"ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf",'
    assert SCANNER.scan(text).findings == ()
    assert SCANNER.scan("secret: prod/db-AbCdEf9x").redactions == 1  # no ARN: an assignment


# Values longer than any the patterns used to take whole: all of each goes, however long.
_LONG = "AdjfVIK8ceKE88T_X1LFLCmy" * 25  # 600 characters
LONG_VALUES = {
    "url-password": f"git clone https://ci:{_LONG[:240]}@git.acme.io/acme/app.git",
    "curl-password": f"curl -u admin:{_LONG[:240]} https://nexus.acme.io/",
    "assigned": f"DB_PASSWORD={_LONG}",
    "assigned-quoted": f'"api_token": "{_LONG}"',
    "xml": f"<password>{_LONG}</password>",
    "table-cell": f"| password | {_LONG} |",
    "mysql": f"mysql -p{_LONG[:288]} shop",
    "sshpass-quoted": f"sshpass -p '{_LONG[:288]}' ssh deploy@host",
    "slack-token": f"xoxb-{_LONG[:288].replace('_', '-')}",
    "slack-webhook": f"https://hooks.slack.com/services/T0/B0/{_LONG[:288].replace('_', '')}",
    "anthropic-key": f"sk-ant-api03-{_LONG[:336]}",
    "openai-key": f"sk-proj-{_LONG[:336]}",
    "openai-legacy-key": f"sk-{_LONG[:264].replace('_', '')}",
    "gitlab-token": f"glpat-{_LONG[:336]}",
    "stripe-key": f"sk_live_{_LONG[:288].replace('_', '')}",
    "github-token": f"github_pat_{_LONG[:288]}",
    "google-oauth-token": f"ya29.{_LONG * 4}",
    "prose": f"the secret is {_LONG[:288]} for now",
    "pypi-token": f"poetry config pypi-token.pypi pypi-AgEIcHlwaS5vcmc{_LONG * 2}",
    "vault-service-token": f"VAULT_TOKEN=hvs.{_LONG[:192]}",
    "vault-batch-token": f"hvb.{_LONG[:336]}",
    "grafana-cloud-token": f"glc_{_LONG[:480].replace('_', '+')}",
    "mapbox-token": f"sk.eyJ1{_LONG[:336]}.Xk9mQ2vL7pR4tY8wZ3nB6c",
    "netrc": f"machine git.acme.io login ci password {_LONG}",
}


@pytest.mark.parametrize("text", LONG_VALUES.values(), ids=list(LONG_VALUES))
def test_a_long_secret_is_redacted_whole(text: str) -> None:
    result = SCANNER.scan(text)
    assert result.redactions >= 1, text
    assert "X1LFLCmy" not in result.text, result.text  # how every value here ends


def test_a_long_value_of_words_with_numbers_is_judged_whole() -> None:
    """Each part reads as a word with a number (``Ab1``, ``xY9``) in more than one way; a value
    of many such parts that is no name after all is judged as quickly as any other (not once for
    every way of reading it)."""
    value = "Ab1-xY9_" * 40 + "+"
    result = SCANNER.scan(f"DB_PASSWORD={value}")
    assert result.text == "DB_PASSWORD=[REDACTED:credential-assignment]"
# A test runner's PASS is a status, not a password key: test output, the output tools print
# most, keeps its test names and files (Go, Jest, pytest, cargo), and a shell's environment
# dump keeps the folders PWD and OLDPWD name.
TEST_RUNS_AND_ENVIRONMENTS = {
    "go-test": "=== RUN   TestSHA256\n--- PASS: TestSHA256 (0.00s)\n--- PASS: TestParseV2 (0.00s)\n"
               "    --- PASS: TestAPI/get_user_404 (0.00s)\n--- FAIL: TestAuthTokenRefreshV2 (0.01s)\n"
               "PASS\nok  \tgithub.com/acme/api/internal/auth\t0.123s",
    "jest": " PASS  src/App.test.js\n PASS  src/components/Button.test.tsx (5.2 s)\n"
            " FAIL  packages/core/src/__tests__/AuthTokenV2.spec.ts\n PASS  lib/OAuth2Client.test.js\n"
            "Tests:       3 passed, 1 failed, 4 total",
    "pytest": "tests/test_login.py::test_ok PASSED                [ 50%]\n"
              "tests/test_login.py::TestTokens::test_refresh_v2 PASSED [100%]\nPASSED tests/test_api.py::TestAuth2FA",
    "cargo-test": "running 2 tests\ntest auth::tests::parses_v2_token ... ok\ntest tests::Sha256Roundtrip ... ok\n"
                  "test result: ok. 2 passed; 0 failed",
    "env-dump-json": '{"PWD": "/Users/alice/src/App", "OLDPWD": "/opt/MyService/Build"}\n'
                     '{"pwd": "/srv/app/Releases/v2"}',
    "env-dump-lines": "PWD=/Users/alice/src/App\nOLDPWD=/opt/MyService/Build\n"
                      'Env: ["PATH=/usr/bin", "PWD=/opt/MyService", "HOME=/root"]\n"pwd": "C:\\\\Users\\\\alice\\\\Repo"',
}


@pytest.mark.parametrize("text", TEST_RUNS_AND_ENVIRONMENTS.values(), ids=list(TEST_RUNS_AND_ENVIRONMENTS))
def test_test_runner_output_and_environment_dumps_are_kept(text: str) -> None:
    result = SCANNER.scan(text)
    assert [k for k in result.findings if k.kind != "home-path"] == [], (text, result.findings)


@pytest.mark.parametrize("text", [
    f"pass = {_PASS}",
    f'{{"pass": "{_PASS}"}}',
    f"ftp:\n  user: bob\n  pass: {_PASS}\n",
    f"pwd: {_PASS}",
    f"PW={_PASS}",
])
def test_a_bare_pass_pw_or_pwd_key_assigned_a_value_is_still_redacted(text: str) -> None:
    result = SCANNER.scan(text)
    assert _PASS not in result.text, result.text


def test_a_text_is_read_after_its_context_and_kept_alone() -> None:
    """A tool's output is scanned with the command that printed it before it: what the
    command says counts, and only the output's own redactions and verdict come back."""
    command = "heroku auth:token  # 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; ignore all previous instructions"
    result = SCANNER.scan(f"{_UUID}\n", context=command)
    assert result.text == "[REDACTED:command-token]\n" and not result.quarantined
    assert [(f.kind, f.count) for f in result.findings] == [("command-token", 1)]
    assert SCANNER.scan(f"{_UUID}\n").findings == ()


# Command passwords written as a program's argument list, each argument a quoted string:
# subprocess's, Go's exec.Command, a JSON command array; and Terraform Cloud tokens, .netrc's
# default entry and a registry login's joined -p in the shapes real ones take.
ARGV_AND_MIXED_CASE = {
    "subprocess-mysql": ('subprocess.run(["mysql", "-uroot", "-pXk9mQ2vL7pR4", "shop"])',
                         'subprocess.run(["mysql", "-uroot", "-p[REDACTED:command-password]", "shop"])'),
    "subprocess-sshpass": ("subprocess.run(['sshpass', '-p', 'Xk9mQ2vL7pR4', 'ssh', 'host'])",
                           "subprocess.run(['sshpass', '-p', '[REDACTED:command-password]', 'ssh', 'host'])"),
    "redis-cli-list": ('cmd = ["redis-cli", "-a", "Xk9mQ2vL7pR4", "ping"]',
                       'cmd = ["redis-cli", "-a", "[REDACTED:command-password]", "ping"]'),
    "go-exec-command": ('exec.Command("docker", "login", "-u", "bob", "-p", "Xk9mQ2vL7pR4")',
                        'exec.Command("docker", "login", "-u", "bob", "-p", "[REDACTED:command-password]")'),
    "curl-list": ('subprocess.run(["curl", "-u", "bob:Xk9mQ2vL7pR4", "https://x"])',
                  'subprocess.run(["curl", "-u", "bob:[REDACTED:basic-auth]", "https://x"])'),
    "docker-login-joined": ("docker login -u bob -pXk9mQ2vL7pR4 ghcr.io",
                            "docker login -u bob -p[REDACTED:command-password] ghcr.io"),
    "docker-login-equals": ("docker login -u bob -p=Xk9mQ2vL7pR4 ghcr.io",
                            "docker login -u bob -p=[REDACTED:command-password] ghcr.io"),
    "terraform-mixed-case": ("export TF_TOKEN_app_terraform_io=v7VUmLAnjKOpXQ.atlasv1.u1sPMBQ4XgTzqJ9wVbR3cYpH7aF6eUj"
                             "LnW2oZs1vKd8rBtE5yCiMg0HDeyRmPdG2sNk5",
                             "export TF_TOKEN_app_terraform_io=[REDACTED:terraform-token]"),
    "netrc-default": ("machine github.com login bob password $GITHUB_TOKEN\ndefault login anonymous password Xk9mQ2vL7pR4",
                      "machine github.com login bob password $GITHUB_TOKEN\ndefault login anonymous password "
                      "[REDACTED:credential-assignment]"),
}


@pytest.mark.parametrize(("text", "expected"), ARGV_AND_MIXED_CASE.values(), ids=list(ARGV_AND_MIXED_CASE))
def test_argument_lists_mixed_case_terraform_tokens_and_netrc_defaults_are_redacted(text: str, expected: str) -> None:
    result = SCANNER.scan(text)
    assert result.text == expected


@pytest.mark.parametrize("text", [
    'subprocess.run(["docker", "run", "-p", "8080:80", "nginx"])',
    'args = ["mysql", "-p"], ["--name", "shop"]',
    'subprocess.run(["mysql", "-uroot", "shop"], input="-pXk9mQ2vL7pR4")',
    "run(['mysql', '-u', 'root', '-p', 'shop'])",
    "the default login is admin, password reset needed",
    'labels = ["login", "-p", "Xk9mQ2vL7pR4"]',
])
def test_argument_lists_holding_no_password_are_kept(text: str) -> None:
    result = SCANNER.scan(text)
    assert result.findings == (), (text, result.findings)


@pytest.mark.parametrize("text", [
    "AccessorID:       6a12f3c4-1b2d-4e5f-8a9b-0c1d2e3f4a5b\nSecretID:         4d3f7e2a-8b1c-4e5f-9a6b-7c8d9e0f1a2b",
    "secret_id=4d3f7e2a-8b1c-4e5f-9a6b-7c8d9e0f1a2b",
    "VAULT_SECRET_ID=4d3f7e2a-8b1c-4e5f-9a6b-7c8d9e0f1a2b",
])
def test_a_secret_id_is_a_secret(text: str) -> None:
    """Consul's ACL tokens print as a SecretID, and Vault's AppRole logs in with a secret_id:
    UUIDs that are the credential itself."""
    result = SCANNER.scan(text)
    assert "4d3f7e2a" not in result.text and result.redactions == 1, result.text


@pytest.mark.parametrize("text", [
    '"SecretId": "prod/db"',
    '"SecretId": "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf"',
    "secret_id: my-app-db-password",
    "secret_id = get_secret_id()",
])
def test_a_secret_id_naming_a_secret_is_kept(text: str) -> None:
    """AWS Secrets Manager's SecretId names the secret (its name or ARN), it is no credential."""
    assert SCANNER.scan(text).findings == (), text


LONG_RUN = ("Ab1xY9Qz" * 12_500)[:100_000]  # one word of random letters and digits, 100 kB


@pytest.mark.parametrize(("text", "kind"), [
    (f"password={LONG_RUN}", "credential-assignment"),
    (f"the secret is {('Ab1xY9Qz7KmP3wRt' * 6_250)} ok", "prose-secret"),
    (f"machine h password {LONG_RUN}\n", "credential-assignment"),
    (f"<password>{LONG_RUN}</x>", "credential-assignment"),
])
def test_a_long_value_is_judged_in_one_pass_and_redacted_whole(text: str, kind: str) -> None:
    """A value that is one long run of word characters is read once for a call (``name(``), not
    once from each of its characters."""
    result = SCANNER.scan(text)
    assert not result.quarantined
    assert [(f.kind, f.action, f.count) for f in result.findings] == [(kind, "redact", 1)]
    assert "Ab1xY9Qz" not in result.text


@pytest.mark.parametrize("value", ["init_cache(", "123abcd(", "\u00e9tat_get(", "x1y2(", "9_abc(", "12345(ab1234("])
def test_a_call_in_a_value_marks_it_a_template_wherever_its_name_starts(value: str) -> None:
    from gitstore.safety.values import names_something

    assert names_something(value + "Ab1xY9Qz7KmP3wRt)")


def test_a_value_nesting_brackets_deeper_than_any_type_is_judged_in_time_and_redacted() -> None:
    """Brackets nested thousands deep are no type an API documents: the value is not read again
    for each level of them."""
    depth = 6_000
    value = "".join(("Ab[", "Cd[", "Ef[", "Gh[", "Jk[", "Mn[")[i % 6] for i in range(depth)) + "X" + "]" * depth
    result = SCANNER.scan(f'password: "{value}"')
    assert result.text == 'password: "[REDACTED:credential-assignment]"'


@pytest.mark.parametrize("value", ["Optional[List[Dict[str, Tuple[int, ...]]]]",
                                   "A[B[C[D[E[F[G[H[I[J[K[L[M[N[O[P[str]]]]]]]]]]]]]]]]"])
def test_a_nested_type_is_kept(value: str) -> None:
    assert SCANNER.scan(f'password: "{value}"').text == f'password: "{value}"'


# A key shown without its BEGIN line: `tail -n +2 key.pem`, or the second of two commands that
# print it half each (`head -14 key.pem`, `tail -n +15 key.pem`): its body and END line.
HEADLESS_KEYS = {
    "tail": "\n".join(_KEY_LINES[1:]),
    "second-half": "\n".join(_KEY_LINES[2:]),
    "file-reader": "\n".join(f"{n:6}\u2192{line}" for n, line in enumerate(_KEY_LINES[1:], 2)),
    "quoted-reply": "\n".join("> " + line for line in _KEY_LINES[1:]),
    "cat-n": "\n".join(f"{n:6}\t{line}" for n, line in enumerate(_KEY_LINES[1:], 2)),
    "json-string": '  "private_key": "' + "\\n".join(_KEY_LINES[1:]) + '\\n",',
    "short-last-line": "\n".join([*_OPENSSH_BODY, "QIDAQAB", _KEY_LINES[-1]]),
    "short-last-escaped": '"' + "\\n".join([*_OPENSSH_BODY, "QIDAQAB", _KEY_LINES[-1]]) + '"',
    "diff-added": "@@ -0,0 +1,4 @@\n" + "\n".join("+" + line for line in _KEY_LINES[1:]),
    "diff-removed": "@@ -2,4 +1,0 @@\n" + "\n".join("-" + line for line in _KEY_LINES[1:]),
    "diff-context": "@@ -2,4 +2,4 @@\n" + "\n".join(" " + line for line in _KEY_LINES[1:]),
    "json-array": json.dumps(_KEY_LINES[1:], indent=2),
    "json-array-compact": json.dumps(_KEY_LINES[1:]),
    "json-crlf-string": json.dumps({"key": "\r\n".join(_KEY_LINES[1:])}),
    "python-list": repr(_KEY_LINES[1:]),
    "markdown-list": "\n".join("- " + line for line in _KEY_LINES[1:]),
    "pipe-table": "\n".join(f"| {line} |" for line in _KEY_LINES[1:]),
    "html-breaks": "<br>".join(_KEY_LINES[1:]),
    "space-joined": " ".join(_KEY_LINES[1:]),
    "double-spaced": "\n\n".join(_KEY_LINES[1:]),
    "blank-before-end": "\n".join(_KEY_LINES[1:-1]) + "\n\n" + _KEY_LINES[-1],
    "string-concatenation": "\n".join(f'"{line}\\n" +' for line in _KEY_LINES[1:]),
}


@pytest.mark.parametrize("text", HEADLESS_KEYS.values(), ids=list(HEADLESS_KEYS))
def test_a_private_key_shown_without_its_begin_line_is_redacted(text: str) -> None:
    result = SCANNER.scan(f"$ tail -n +2 deploy.pem\n{text}\n$ ls")
    assert [f.kind for f in result.findings] == ["pem-private-key"], (text, result.findings)
    assert not any(line in result.text for line in _OPENSSH_BODY), result.text
    assert result.text.startswith("$ tail -n +2 deploy.pem\n") and result.text.endswith("\n$ ls"), result.text


@pytest.mark.parametrize("text", [
    "-----END PRIVATE KEY-----",
    "the file ends with\n-----END RSA PRIVATE KEY-----\nand nothing before it",
    "...\n-----END OPENSSH PRIVATE KEY-----",
    "deadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeef\n-----END PRIVATE KEY-----",
    "- paste the key here\n- then the line\n- -----END PRIVATE KEY-----",
    "['first', 'second', '-----END PRIVATE KEY-----']",
    "+ if line == '-----END PRIVATE KEY-----':\n+     break",
    "@@ -10,3 +10,4 @@ def read_key(path):\n     lines = []\n+    end = '-----END PRIVATE KEY-----'",
    "the last line\n\n\n\n-----END PRIVATE KEY-----",
])
def test_an_end_line_without_key_material_before_it_is_kept(text: str) -> None:
    assert SCANNER.scan(text).findings == (), text


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo,
                          check=True, capture_output=True, text=True).stdout


_RSA_BODY = [  # a 2048-bit key's first lines and, after them, other lines of its length
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCpotkxVhq6pY2g",
    *[(_OPENSSH_BODY[n % 3][n:] + _OPENSSH_BODY[(n + 1) % 3][:n]) for n in range(1, 25)],
    "EvfVLWXrmoaPQeHEmi1AAuM=",
]


def test_a_private_key_in_real_git_diffs_is_redacted(tmp_path: Path) -> None:
    """A key file removed (``git rm key; git diff --cached``) or rotated in place (``git diff``,
    its BEGIN line outside the hunk; ``git diff -U0``, its END line too): no line of the key
    stays in clear."""
    _git(tmp_path, "init", "-q")
    key = ["-----BEGIN PRIVATE KEY-----", *_RSA_BODY, "-----END PRIVATE KEY-----"]
    (tmp_path / "deploy.pem").write_text("\n".join(key) + "\n")
    _git(tmp_path, "add", "deploy.pem")
    _git(tmp_path, "commit", "-qm", "key")
    rotated = key[:10] + [line[::-1] for line in _RSA_BODY[9:-1]] + key[-2:]
    (tmp_path / "deploy.pem").write_text("\n".join(rotated) + "\n")
    shown = {"rotated": _git(tmp_path, "diff"), "rotated-U0": _git(tmp_path, "diff", "-U0")}
    _git(tmp_path, "checkout", "-q", "deploy.pem")
    _git(tmp_path, "rm", "-q", "deploy.pem")
    shown["removed"] = _git(tmp_path, "diff", "--cached")
    for name, diff in shown.items():
        assert sum(line[:20] in diff for line in _RSA_BODY[:-1] + rotated[10:-2]) >= 15, (name, diff)
        result = SCANNER.scan(diff)
        kept = [line for line in _RSA_BODY[:-1] + rotated[10:-2] if line[:20] in result.text]
        assert kept == [], (name, result.text)
        assert "diff --git a/deploy.pem b/deploy.pem" in result.text


def test_base64_lines_in_a_diff_of_other_files_are_kept(tmp_path: Path) -> None:
    """Base64 lines in the hunks of a file that holds no private key (a fixture, a certificate
    whose diff names it) are left as they are."""
    _git(tmp_path, "init", "-q")
    cert = ["-----BEGIN CERTIFICATE-----", *_RSA_BODY, "-----END CERTIFICATE-----"]
    (tmp_path / "fixture.txt").write_text("\n".join(_RSA_BODY) + "\n")
    (tmp_path / "ca.pem").write_text("\n".join(cert) + "\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "files")
    (tmp_path / "fixture.txt").write_text("\n".join(line[::-1] for line in _RSA_BODY) + "\n")
    (tmp_path / "ca.pem").write_text("\n".join([cert[0], *(line[::-1] for line in _RSA_BODY), cert[-1]]) + "\n")
    for options in ([], ["-U0"]):
        diff = _git(tmp_path, "diff", *options, "--", "fixture.txt")
        assert SCANNER.scan(diff).findings == (), diff
    diff = _git(tmp_path, "diff", "--", "ca.pem")
    assert SCANNER.scan(diff).findings == (), diff


# --- tokens broken over lines ------------------------------------------------------------------

_SPLIT = "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"


@pytest.mark.parametrize("text", [
    f"token {_SPLIT[:20]}\n\n{_SPLIT[20:]} end",  # two content blocks of one message
    f"GH={_SPLIT[:20]}\n{_SPLIT[20:]}",  # a tool result made of two text parts
    f"{_SPLIT[:12]}\r\n{_SPLIT[12:26]}\n{_SPLIT[26:]}.",  # three streamed pieces
    f"key: {'sk-proj-' + 'Q7vLm2Xc9RtB4nKp'}\n{'Zw8HyE3sJd6FgA1uVo5TiN0q'} ok",
])
def test_a_token_broken_over_lines_goes_whole(text: str) -> None:
    """A token cut by the line breaks a transcript joins its blocks and lines with is two halves
    each too short for its shape, which anyone reading the stored text puts back together."""
    result = SCANNER.scan(text)
    redacted = result.text
    assert "[REDACTED:" in redacted, redacted
    for piece in ("0fAGST5ohwj3", "ul2ncFNgdncvat1udB", "Q7vLm2Xc9RtB", "Zw8HyE3sJd6F"):
        assert piece not in redacted, redacted
    assert redacted.endswith((" end", ".", " ok")) or redacted.endswith("]")


@pytest.mark.parametrize("name", ["aws-bedrock", "flyio", "cloudflare-origin-ca", "dynatrace", "brevo",
                                  "slack-refresh", "docker", "xai"])
def test_a_new_shape_wrapped_by_a_terminal_goes_whole(name: str) -> None:
    """The shapes added for other vendors are put back together when a terminal wraps them, as
    GitHub's and OpenAI's are; the long ones are those a terminal wraps."""
    key, kind = API_KEYS[name]
    cut = len(key) // 2
    result = SCANNER.scan(f"the output was\n{key[:cut]}\n{key[cut:]}\ndone")
    assert result.text == f"the output was\n[REDACTED:{kind}]\ndone", result.text


@pytest.mark.parametrize("text", [
    f"{_SPLIT}\nNext line of prose",  # whole on its line: the next line stays
    "ghp_xxxxxxxxxxxxxxxxxxxxxxxx\nRandomLookingContinuation123",  # a placeholder is no half of a token
    "Set GH to ghp_0fAGST5ohwj3Aio6\nConfigurationReaderFactoryBuilder",  # a name opens the next line
    "sk-\nlearn is a library",
    "see key-\nvalue stores",
])
def test_lines_that_only_meet_a_token_prefix_stay(text: str) -> None:
    redacted = SCANNER.scan(text).text
    assert text.split("\n")[1] in redacted, redacted
