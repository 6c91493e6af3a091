"""Database URLs: parsing, percent-encoding, parameters, the redacted form, precedence; no password in any message."""
import pytest

from kiraos_desktop.core.storage.database_url import (
    ENV_DATABASE_URL,
    DatabaseUrlError,
    choose_database_url,
    parse_database_url,
)

SECRET = "s3cr:et@/?#pw"


def test_full_url_is_parsed_and_redacted():
    url = parse_database_url("postgresql://kira:hunter2@db.example.com:6543/memory")
    assert (url.user, url.password, url.host, url.port, url.database) == (
        "kira", "hunter2", "db.example.com", 6543, "memory")
    assert url.redacted() == "postgresql://kira:***@db.example.com:6543/memory"
    assert str(url) == url.redacted()
    assert "hunter2" not in repr(url) and "hunter2" not in str(url) and "hunter2" not in f"{url}"


def test_defaults_and_the_short_scheme():
    url = parse_database_url("postgres://kira@localhost/memory")
    assert (url.port, url.password, url.has_password) == (5432, None, False)
    assert url.redacted() == "postgresql://kira@localhost:5432/memory"
    assert url.connect_url() == "postgresql://kira@localhost:5432/memory?connect_timeout=10"


def test_percent_encoded_parts_round_trip():
    from urllib.parse import quote

    text = f"postgresql://{quote('ki ra', safe='')}:{quote(SECRET, safe='')}@[::1]:5433/{quote('my db', safe='')}"
    url = parse_database_url(text)
    assert (url.user, url.password, url.host, url.database) == ("ki ra", SECRET, "::1", "my db")
    again = parse_database_url(url.connect_url())
    assert (again.user, again.password, again.host, again.port, again.database) == ("ki ra", SECRET, "::1", 5433, "my db")
    assert SECRET not in url.redacted() and quote(SECRET, safe="") not in url.redacted()


def test_socket_folder_host():
    url = parse_database_url("postgresql://kira@%2Fvar%2Frun%2Fpostgresql/memory")
    assert url.host == "/var/run/postgresql"
    assert parse_database_url(url.connect_url()).host == "/var/run/postgresql"


def test_parameters_pass_through_and_secret_ones_are_hidden():
    url = parse_database_url("postgresql://kira:pw@h/db?sslmode=verify-full&sslpassword=keypass&connect_timeout=3")
    assert dict(url.params) == {"sslmode": "verify-full", "sslpassword": "keypass", "connect_timeout": "3"}
    assert "keypass" not in url.redacted() and "sslmode=verify-full" in url.redacted()
    assert url.connect_url().endswith("?sslmode=verify-full&sslpassword=keypass&connect_timeout=3")
    assert url.hide_secrets("bad key keypass for pw") == "bad key *** for ***"


def test_a_short_password_is_hidden_where_it_stands_not_inside_words():
    # Masking every "p" would garble the message ("host and ***ort") and show what the password is.
    url = parse_database_url("postgresql://kira:p@127.0.0.1:1/db?sslpassword=an")
    message = "Cannot reach PostgreSQL: check the host and port of the database URL and an option."
    assert url.hide_secrets(message) == message.replace(" an ", " *** ")
    assert url.hide_secrets('password=p, "p" or p.') == 'password=***, "***" or ***.'


@pytest.mark.parametrize("text,problem", [
    ("mysql://u:PWD@h/db", "must start with postgresql://"),
    ("postgresql:/u:PWD@h/db", "must start with postgresql://"),
    ("postgresql://h/db", "no user name"),
    ("postgresql://:PWD@h/db", "no user name"),
    ("postgresql://u:PWD@/db", "no host"),
    ("postgresql://u:PWD@h", "no database name"),
    ("postgresql://u:PWD@h/", "no database name"),
    ("postgresql://u:PWD@h:99999/db", "port must be a number"),
    ("postgresql://u:PWD@h:port/db", "port must be a number"),
    ("postgresql://u:PWD@h:/db", "no port after"),
    ("postgresql://u:PWD@h1,h2/db", "several hosts"),
    ("postgresql://u:PWD@[::zz]/db", "not an IPv6 address"),
    ("postgresql://u:PWD@bad_host!/db", "the host must be"),
    ("postgresql://u:PW D@h/db", "spaces"),
    ("postgresql://u:PWD@h/db#x", "'#'"),
    ("postgresql://u:PWD@h/db?sslmode=maybe", "sslmode must be one of"),
    ("postgresql://u:PWD@h/db?connect_timeout=soon", "connect_timeout must be a whole number"),
    ("postgresql://u:PWD@h/db?frobnicate=1", "unknown parameter 'frobnicate'"),
    ("postgresql://u@h/db?password=PWD", "put the password after the user name"),
    ("postgresql://u:PWD@h/db?sslmode=require&sslmode=disable", "given twice"),
    ("postgresql://u:PWD@h/db?sslmode", "has no value"),
    ("postgresql://u:P/WD@h/db", "must be percent-encoded"),
    ("postgresql://u:PWD%E9@h/db", "not UTF-8"),  # a Latin-1 é: it would log in with U+FFFD instead
    ("postgresql://u:PWD@h/d%FFb", "not UTF-8"),
    ("postgresql://u:PWD@h/db?application_name=%C3", "not UTF-8"),
    ("postgresql://u:PWD@h/d\udcffb", "not UTF-8"),  # a command-line argument that was not UTF-8
])
def test_malformed_urls_get_one_line_without_the_password(text, problem):
    with pytest.raises(DatabaseUrlError) as caught:
        parse_database_url(text, source="--database-url")
    message = str(caught.value)
    assert problem in message
    assert message.startswith("database URL (--database-url): ")
    assert "\n" not in message
    for secret in ("PWD", "PW D", "P/WD"):
        assert secret not in message


def test_precedence_option_then_environment_then_setting():
    env = {ENV_DATABASE_URL: "postgresql://env@h/db"}
    setting = "postgresql://setting@h/db"
    assert choose_database_url("postgresql://opt@h/db", setting, env).user == "opt"
    assert choose_database_url(None, setting, env).user == "env"
    assert choose_database_url(None, setting, {}).user == "setting"
    assert choose_database_url(None, setting, {ENV_DATABASE_URL: " "}).user == "setting"
    assert choose_database_url("", setting, env) is None  # an empty option: the SQLite database
    assert choose_database_url(None, "", {}) is None


def test_errors_name_where_the_url_came_from():
    with pytest.raises(DatabaseUrlError, match=rf"\({ENV_DATABASE_URL}\)"):
        choose_database_url(None, "", {ENV_DATABASE_URL: "postgresql://nohost"})
    with pytest.raises(DatabaseUrlError, match=r"\(setting database_url\)"):
        choose_database_url(None, "sqlite:///x", {})
