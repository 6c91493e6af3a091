"""The context fast path reads a percent-encoded value exactly as urllib's unquote_plus does."""
from urllib.parse import quote, unquote_plus

from hypothesis import given, settings, strategies as st

from kiraos_desktop.api.fastpath.context import _decoded


def _standard(value: bytes):
    try:
        return unquote_plus(value.decode("ascii"), errors="strict")
    except UnicodeError as exc:
        return type(exc)


def _fast(value: bytes):
    try:
        return _decoded(value)
    except UnicodeError as exc:
        return type(exc)


pieces = st.sampled_from([b"%", b"%e6", b"%E6%97%85", b"%zz", b"%4", b"+", b"\\", b"\\x41", b"%5Cx41", b"%00",
                          b"%0A", b"a", b"%C3%A9", b"%FF", b"\xe6", b"%%", b"%2B", b"=", b"&"])


@settings(max_examples=500, deadline=None)
@given(value=st.lists(pieces | st.binary(max_size=4), max_size=12).map(b"".join)
       | st.text(max_size=30).map(lambda t: quote(t).encode()))
def test_a_value_reads_as_the_standard_function_reads_it(value):
    assert _fast(value) == _standard(value)


def test_a_message_reads_in_full():
    assert _decoded(quote("旅行怎么样了 猫 12 <b>&").encode()) == "旅行怎么样了 猫 12 <b>&"
    assert _decoded(b"a+b%20c") == "a b c"
