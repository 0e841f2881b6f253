"""A cookie domain for nodes on host names of their own (issue 29): ``tienlen serve
--cookie-domain example.org`` sets the guest cookie for the domain and its subdomains, and a
page of any host under it may open sockets at any node; a page of another site is still
refused, and so is a sibling host when no cookie domain is set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from serverkit import Client, LiveServer, guest_cookie
from tienlen.apps.cli import build_parser
from tienlen.apps.cmd_serve import settings_of
from tienlen.apps.server.deps import BadCookieDomain, cookie_domain, origin_ok


@pytest.fixture
def live_settings() -> dict[str, Any]:
    return {"cookie_domain": "tienlen.example"}


@pytest.mark.parametrize(
    ("text", "domain"),
    [
        ("tienlen.example", "tienlen.example"),
        (".Tienlen.Example", "tienlen.example"),  # the leading dot browsers ignore
        ("play.tien-len.example.org", "play.tien-len.example.org"),
        ("xn--tinln-jua9b.example", "xn--tinln-jua9b.example"),
    ],
)
def test_a_cookie_domain_is_read(text: str, domain: str) -> None:
    assert cookie_domain(text) == domain


@pytest.mark.parametrize(
    "text",
    ["", "localhost", "127.0.0.1", "::1", "a..example", "-a.example", "a-.example", "a_b.example",
     "example.org/", "https://example.org", "tiến.example", "x" * 64 + ".example"],
)  # fmt: skip
def test_a_bad_cookie_domain_is_refused_with_the_text(text: str) -> None:
    with pytest.raises(BadCookieDomain, match="two labels") as got:
        cookie_domain(text)
    assert repr(text[:80]) in str(got.value)


def test_the_option_is_checked_and_reaches_the_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = build_parser()
    args = parser.parse_args(["serve", "--data", str(tmp_path), "--cookie-domain", ".N.Example"])
    assert settings_of(args).cookie_domain == "n.example"
    plain = parser.parse_args(["serve", "--data", str(tmp_path)])
    assert settings_of(plain).cookie_domain is None
    with pytest.raises(SystemExit):
        parser.parse_args(["serve", "--cookie-domain", "localhost"])
    assert "--cookie-domain" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("origin", "domain", "ok"),
    [
        (None, None, True),  # not a browser
        ("https://n1.tienlen.example", None, False),  # a sibling, without a cookie domain
        ("https://n1.tienlen.example", "tienlen.example", True),
        ("https://tienlen.example", "tienlen.example", True),
        ("http://a.b.tienlen.example:8443", "tienlen.example", True),
        ("https://N1.Tienlen.Example", "tienlen.example", True),
        ("https://evil.example", "tienlen.example", False),
        ("https://eviltienlen.example", "tienlen.example", False),
        ("https://tienlen.example.evil.org", "tienlen.example", False),
        ("null", "tienlen.example", False),
        ("file://tienlen.example", "tienlen.example", False),
        ("https://other.example", "tienlen.example", True),  # in --origin
    ],
)
def test_origins_of_the_cookie_domain_may_open_sockets(
    origin: str | None, domain: str | None, ok: bool
) -> None:
    allowed = ("https://other.example",)
    assert origin_ok(origin, "n2.tienlen.example", allowed, domain) is ok


def test_the_guest_cookie_goes_to_the_domain(tmp_path: Path) -> None:
    parser = build_parser()
    for flags, domain in (([], None), (["--cookie-domain", "tienlen.example"], "tienlen.example")):
        settings = settings_of(parser.parse_args(["serve", "--data", str(tmp_path), *flags]))
        cookie = guest_cookie(settings, tmp_path / "c.db").lower()
        if domain is None:
            assert "domain=" not in cookie, cookie
        else:
            assert f"; domain={domain}" in cookie, cookie


def test_a_page_of_a_sibling_host_opens_a_socket_and_another_site_is_refused(
    live: LiveServer,
) -> None:
    host = Client(live.base, "Host")
    table = host.create()["table"]["id"]
    for origin in ("https://n1.tienlen.example", "https://tienlen.example"):
        assert host.socket(table, origin=origin, welcome=False).recv()["type"] == "welcome"
    for origin in ("https://evil.example", "https://tienlen.example.evil.org"):
        refused = host.socket(table, origin=origin, welcome=False).recv()
        assert (refused["type"], refused["code"]) == ("error", "forbidden"), refused
