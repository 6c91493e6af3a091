"""The text the product accepts from JSON: Unicode scalar values only, so no lone UTF-16 surrogate.

JSON may spell a character as `\\uXXXX`, and a lone `\\ud800`..`\\udfff` escape decodes to a
Python string that cannot be encoded as UTF-8: SQLite, the reply encoder and log files all fail on
it, some only after a commit. Such input is refused where JSON comes in (API bodies, the CLI's
--json, import files, skill manifests), naming the offending field, before anything uses it.
"""
from __future__ import annotations

import json
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
#: A surrogate can only come from an escape `\uD800`..`\uDFFF` (UTF-8 decoding refuses encoded ones).
_ESCAPE_BYTES = re.compile(rb"\\u[dD]")
_ESCAPE_TEXT = re.compile(r"\\u[dD]")


class LoneSurrogateError(ValueError):
    """A string of the JSON holds a lone surrogate; `path` locates it (keys and indexes), [] for the root."""

    def __init__(self, path: list):
        self.path = path
        super().__init__(f"{dotted_path(path) or 'the text'}: {SURROGATE_MESSAGE}")


SURROGATE_MESSAGE = ("is not valid Unicode text: it contains a lone UTF-16 surrogate (an unpaired escape "
                     "from \\ud800 to \\udfff); send whole characters (pairs of escapes for characters "
                     "beyond U+FFFF)")


def may_hold_surrogate(raw: bytes | str) -> bool:
    """False when JSON text cannot decode to a surrogate: the usual case, found by a search for a
    backslash (memchr) and, only when there is one, for `\\u` followed by D.

    Bytes come from a strict UTF-8 decoding, so only escapes can make a surrogate; a str may hold
    one as it is (command-line arguments that were not UTF-8 arrive that way).
    """
    if isinstance(raw, bytes):
        return 92 in raw and _ESCAPE_BYTES.search(raw) is not None  # 92: the backslash
    return ("\\" in raw and _ESCAPE_TEXT.search(raw) is not None) or _SURROGATE.search(raw) is not None


# Encoding everything at once in C is about three times as fast as walking the data in Python.
_encode = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode


def lone_surrogate_path(data: Any) -> list | None:
    """The path (keys and list indexes) of the first string or key holding a surrogate, else None.

    A decoded string holds a surrogate only when its escape was unpaired: the decoder joins pairs.
    """
    try:
        _encode(data).encode("utf-8")
    except UnicodeEncodeError:
        pass  # there is one: find it
    except (TypeError, ValueError, RecursionError):
        pass  # not plain JSON data: walk it
    else:
        return None
    stack: list[tuple[Any, tuple]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        kind = type(value)
        if kind is str:
            if _SURROGATE.search(value):
                return list(path)
        elif kind is dict:
            for key in value:
                if _SURROGATE.search(key):
                    return [*path, key]
            stack.extend((item, (*path, key)) for key, item in reversed(value.items()))
        elif kind is list:
            stack.extend((item, (*path, index)) for index, item in reversed(list(enumerate(value))))
    return None


def check_text(data: Any, raw: bytes | str) -> None:
    """Raise LoneSurrogateError when `data`, decoded from the JSON text `raw`, holds a lone surrogate."""
    if may_hold_surrogate(raw):
        path = lone_surrogate_path(data)
        if path is not None:
            raise LoneSurrogateError(path)


def dotted_path(path: list) -> str:
    """`arguments.operations.0.key`; a key that is itself not valid text is shown with its escapes."""
    return ".".join(str(part).encode("utf-8", "backslashreplace").decode("utf-8") for part in path)


class TooDeepError(json.JSONDecodeError):
    """JSON nested more deeply than the decoder can follow: bad input like any other invalid JSON."""

    def __init__(self, text: str):
        super().__init__("it is nested too deeply", text, 0)


class RepeatedKeyError(json.JSONDecodeError):
    """An object with a key twice: which value counts depends on the reader (Python's takes the last),
    so a file that another tool reads one way is not read another here: refused, as the API does."""

    def __init__(self, key: str, text: str):
        quoted = json.dumps(key, ensure_ascii=False)
        first = text.find(quoted)
        second = text.find(quoted, first + 1) if first >= 0 else -1
        super().__init__(f"the key {quoted} appears twice in one object; keep one", text, max(second, 0))


class _Repeated(Exception):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list) -> dict:
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set = set()
        for key, _ in pairs:
            if key in seen:
                raise _Repeated(key)
            seen.add(key)
    return data


_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys)


def loads(text: str) -> Any:
    """json.loads() that also refuses a key repeated within an object (RepeatedKeyError), lone
    surrogates (LoneSurrogateError, a ValueError) and nesting too deep to decode (TooDeepError);
    RepeatedKeyError and TooDeepError are json.JSONDecodeErrors, reported as invalid JSON."""
    try:
        data = _DECODER.decode(text)
    except RecursionError:
        raise TooDeepError(text) from None
    except _Repeated as exc:
        raise RepeatedKeyError(exc.key, text) from None
    check_text(data, text)
    return data
