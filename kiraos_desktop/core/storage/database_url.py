"""PostgreSQL database URLs: parsing and checking, a redacted form for display, and which one is in use."""
from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass, field
from urllib.parse import quote, unquote

ENV_DATABASE_URL = "KIRAOS_DATABASE_URL"
SCHEMES = ("postgresql", "postgres")
DEFAULT_PORT = 5432
#: Seconds to wait for a server that does not answer, unless the URL says otherwise (libpq waits for
#: the operating system's TCP timeout, minutes, without it).
DEFAULT_CONNECT_TIMEOUT = 10
FORM = "postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE"
REDACTED = "***"

# libpq connection parameters a URL may carry in its query string, passed to the driver as they are.
_CHOICES = {
    "sslmode": ("disable", "allow", "prefer", "require", "verify-ca", "verify-full"),
    "gssencmode": ("disable", "prefer", "require"),
    "channel_binding": ("disable", "prefer", "require"),
    "target_session_attrs": ("any", "read-write", "read-only", "primary", "standby", "prefer-standby"),
}
_NUMBERS = ("connect_timeout", "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count",
            "tcp_user_timeout")
_TEXTS = ("application_name", "options", "sslrootcert", "sslcert", "sslkey", "sslcrl", "sslcrldir", "sslsni",
          "ssl_min_protocol_version", "ssl_max_protocol_version", "sslnegotiation", "require_auth", "passfile",
          "krbsrvname", "gsslib", "sslpassword")
#: Query parameters whose value is a secret: never shown.
SECRET_PARAMS = ("sslpassword",)
ALLOWED_PARAMS = tuple(_CHOICES) + _NUMBERS + _TEXTS
# Parameters that belong in the URL itself (or, for the password, in PGPASSWORD or a .pgpass file).
_MISPLACED = {
    "password": "put the password after the user name (USER:PASSWORD@), or leave it out and use "
                "PGPASSWORD or a .pgpass file",
    "user": "put the user name before the host (USER@HOST)",
    "host": "put the host after the user name (USER@HOST); a socket folder is written percent-encoded, "
            "e.g. USER@%2Fvar%2Frun%2Fpostgresql/DATABASE",
    "hostaddr": "put the address in the host part of the URL",
    "port": "put the port after the host (HOST:PORT)",
    "dbname": "put the database name after the host (HOST/DATABASE)",
    "service": "write the connection out in the URL instead of naming a service",
}
_HOST_LABEL = re.compile(r"^(?!-)[A-Za-z0-9_-]{1,63}(?<!-)$")


class DatabaseUrlError(ValueError):
    """A malformed or unsupported database URL; the one-line message never holds the password."""


def _fail(problem: str, source: str = "") -> DatabaseUrlError:
    where = f" ({source})" if source else ""
    return DatabaseUrlError(f"database URL{where}: {problem}")


@dataclass(frozen=True)
class DatabaseUrl:
    """A checked PostgreSQL URL. str() and repr() give the redacted form: the password never shows."""

    user: str
    host: str
    port: int
    database: str
    password: str | None = field(default=None, repr=False, compare=False)
    params: tuple[tuple[str, str], ...] = ()
    source: str = field(default="", compare=False)  # where it came from, for messages

    @property
    def has_password(self) -> bool:
        return bool(self.password)

    def _netloc(self, password: str | None) -> str:
        user = quote(self.user, safe="")
        if password is not None:
            user += ":" + password
        if self.host.startswith("/"):
            host = quote(self.host, safe="")
        elif ":" in self.host:
            host = f"[{self.host}]"
        else:
            host = self.host
        return f"{user}@{host}:{self.port}"

    def _query(self, params: list[tuple[str, str]], hide: bool) -> str:
        if not params:
            return ""
        shown = [(key, REDACTED if hide and key in SECRET_PARAMS else quote(value, safe=""))
                 for key, value in params]
        return "?" + "&".join(f"{key}={value}" for key, value in shown)

    def redacted(self) -> str:
        """For display and logs: `postgresql://user:***@host:5432/db` (no password: `user@host`)."""
        password = REDACTED if self.password else None
        return (f"postgresql://{self._netloc(password)}/{quote(self.database, safe='')}"
                f"{self._query(list(self.params), hide=True)}")

    def connect_url(self, with_timeout: bool = True) -> str:
        """The URL to hand to the driver or to keep in the settings, password included (never print or
        log it); `with_timeout` adds a connect timeout unless the URL set one."""
        password = quote(self.password, safe="") if self.password else None
        params = list(self.params)
        if with_timeout and "connect_timeout" not in dict(params):
            params.append(("connect_timeout", str(DEFAULT_CONNECT_TIMEOUT)))
        return f"postgresql://{self._netloc(password)}/{quote(self.database, safe='')}{self._query(params, False)}"

    def hide_secrets(self, text: str) -> str:
        """`text` (a driver's error message, say) with this URL's password and secret parameters
        replaced by ***, in case a message quotes them. Only where one stands on its own (not inside
        a word): masking each "p" of a password "p" garbles the text and shows what the password is."""
        secrets = [self.password or ""] + [value for key, value in self.params if key in SECRET_PARAMS]
        for secret in sorted(filter(None, secrets), key=len, reverse=True):
            for form in {secret, quote(secret, safe="")}:
                text = re.sub(r"(?<!\w)" + re.escape(form) + r"(?!\w)", REDACTED, text)
        return text

    def __str__(self) -> str:
        return self.redacted()

    def __repr__(self) -> str:
        return f"DatabaseUrl({self.redacted()!r})"


def _split_host_port(hostport: str, source: str) -> tuple[str, int]:
    if not hostport:
        raise _fail(f"no host after the user name ({FORM})", source)
    if "," in hostport:
        raise _fail("several hosts are not supported; give one host", source)
    port_text = ""
    if hostport.startswith("["):
        end = hostport.find("]")
        if end < 0:
            raise _fail("an IPv6 address needs its closing ']'", source)
        host, rest = hostport[1:end], hostport[end + 1:]
        if rest and not rest.startswith(":"):
            raise _fail("unexpected text after the IPv6 address", source)
        port_text = rest[1:]
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise _fail("the address in [...] is not an IPv6 address", source) from None
    else:
        host, sep, port_text = hostport.partition(":")
        if sep and not port_text:
            raise _fail("no port after ':' (leave out ':' for the default port 5432)", source)
        host = _decoded(host, source)
        if not host.startswith("/") and not _is_host_name(host):
            raise _fail("the host must be a host name, an IPv4 address, [an IPv6 address] or a "
                        "percent-encoded socket folder", source)
    port = DEFAULT_PORT
    if port_text:
        if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
            raise _fail("the port must be a number from 1 to 65535", source)
        port = int(port_text)
    return host, port


def _is_host_name(text: str) -> bool:
    try:
        ipaddress.IPv4Address(text)
        return True
    except ValueError:
        pass
    labels = text.rstrip(".").split(".")
    if not text or len(text) > 253 or all(label.isdigit() for label in labels):  # 999.1.1.1 is no address
        return False
    return all(_HOST_LABEL.match(label) for label in labels)


_NOT_UTF8 = "is not UTF-8 text once percent-decoded (percent-encode the UTF-8 bytes of each character)"


def _decoded(part: str, source: str) -> str:
    """A percent-encoded part of the URL as text; bytes that are not UTF-8 are refused, not replaced
    by U+FFFD (the login would silently use another password, user or database)."""
    try:
        return unquote(part, errors="strict")
    except UnicodeDecodeError:
        raise _fail(_NOT_UTF8, source) from None


def _parse_params(query: str, source: str) -> tuple[tuple[str, str], ...]:
    params: list[tuple[str, str]] = []
    for item in filter(None, query.split("&")):
        key, sep, value = item.partition("=")
        key, value = _decoded(key, source), _decoded(value, source)
        if key in _MISPLACED:
            raise _fail(f"'{key}' is not taken as a parameter: {_MISPLACED[key]}", source)
        if key not in ALLOWED_PARAMS:
            shown = key if re.fullmatch(r"[A-Za-z0-9_]{1,40}", key) else "?"
            raise _fail(f"unknown parameter '{shown}' (supported: {', '.join(sorted(ALLOWED_PARAMS))})", source)
        if not sep:
            raise _fail(f"parameter '{key}' has no value (write {key}=VALUE)", source)
        if any(key == seen for seen, _ in params):
            raise _fail(f"parameter '{key}' is given twice", source)
        if key in _CHOICES and value not in _CHOICES[key]:
            raise _fail(f"{key} must be one of {', '.join(_CHOICES[key])}", source)
        if key in _NUMBERS and not value.isdigit():
            raise _fail(f"{key} must be a whole number", source)
        params.append((key, value))
    return tuple(params)


def parse_database_url(text: str, source: str = "") -> DatabaseUrl:
    """Check `postgresql://user[:password]@host[:port]/db[?param=value&...]` (also `postgres://`).

    Parts may be percent-encoded (a password with '@' or '/' must be). Raises DatabaseUrlError with
    a one-line message that quotes no part of the URL that could be the password.
    """
    if not isinstance(text, str):
        raise _fail("must be text", source)
    text = text.strip()
    scheme, sep, rest = text.partition("://")
    if not sep or scheme.lower() not in SCHEMES:
        raise _fail(f"must start with postgresql:// or postgres:// ({FORM})", source)
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in rest):  # bytes of a command line that were not UTF-8
        raise _fail(_NOT_UTF8, source)
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in rest):
        raise _fail("must not hold spaces or control characters (percent-encode them, e.g. %20)", source)
    if "#" in rest:
        raise _fail("must not hold '#' (percent-encode it as %23)", source)
    rest, _, query = rest.partition("?")
    netloc, slash, path = rest.partition("/")
    userinfo, at, hostport = netloc.rpartition("@")
    if not at:
        raise _fail(f"no user name ({FORM}; a password with '/', '?' or '@' must be percent-encoded)", source)
    user_text, colon, password_text = userinfo.partition(":")
    user = _decoded(user_text, source)
    if not user:
        raise _fail(f"no user name ({FORM})", source)
    password = _decoded(password_text, source) if colon else None
    host, port = _split_host_port(hostport, source)
    database = _decoded(path, source) if slash else ""
    if not database:
        raise _fail(f"no database name after the host ({FORM})", source)
    if "\x00" in user + (password or "") + database + host:
        raise _fail("must not hold NUL characters (%00)", source)
    return DatabaseUrl(user=user, host=host, port=port, database=database, password=password or None,
                       params=_parse_params(query, source), source=source)


def choose_database_url(option: str | None, setting: str = "",
                        environ: dict[str, str] | None = None) -> DatabaseUrl | None:
    """The database URL in effect, or None for the SQLite database of the data dir.

    Precedence: the --database-url option (an empty one means SQLite, whatever the rest says), then
    $KIRAOS_DATABASE_URL (empty counts as unset), then the setting `database_url`.
    """
    env = os.environ if environ is None else environ
    if option is not None:
        return parse_database_url(option, "--database-url") if option.strip() else None
    if env.get(ENV_DATABASE_URL, "").strip():
        return parse_database_url(env[ENV_DATABASE_URL], ENV_DATABASE_URL)
    if setting and setting.strip():
        return parse_database_url(setting, "setting database_url")
    return None
