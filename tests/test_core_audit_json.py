"""dump_audit_value writes exactly what the generic JSON encoder writes for an entry's to_dict()."""
import json

from hypothesis import given
from hypothesis import strategies as st

from kiraos_desktop.core.memory.audit_json import dump_audit_value
from kiraos_desktop.core.memory.records import EventEntry, ProfileEntry


def generic(value):
    return json.dumps(value, ensure_ascii=False)


# Besides the usual shapes, what a plugin-written row may hold: numbers as values, odd floats.
_ANY = st.one_of(st.none(), st.text(), st.integers(), st.floats(allow_nan=True, allow_infinity=True), st.booleans())
_TEXT = st.text()  # quotes, backslashes, control characters and any plane of Unicode


@given(user_id=_TEXT, key=_TEXT, value=st.one_of(_TEXT, _ANY), updated_at=st.one_of(st.none(), _TEXT, _ANY),
       confidence=st.one_of(st.floats(min_value=0, max_value=1), _ANY), category=st.one_of(_TEXT, _ANY),
       expires_at=st.one_of(st.none(), _TEXT, _ANY))
def test_profile_entries(user_id, key, value, updated_at, confidence, category, expires_at):
    entry = ProfileEntry(user_id, key, value, updated_at, confidence, category, expires_at)
    text = dump_audit_value(entry)
    assert text == generic(entry.to_dict())


@given(user_id=_TEXT, key=_TEXT, value=_TEXT, updated_at=_TEXT, confidence=st.floats(min_value=0, max_value=1),
       category=_TEXT, expires_at=st.one_of(st.none(), _TEXT))
def test_profile_entries_of_the_usual_shape(user_id, key, value, updated_at, confidence, category, expires_at):
    entry = ProfileEntry(user_id, key, value, updated_at, confidence, category, expires_at)
    assert dump_audit_value(entry) == generic(entry.to_dict())


@given(event_id=st.one_of(st.integers(), _ANY), user_id=st.one_of(_TEXT, _ANY), summary=st.one_of(_TEXT, _ANY),
       created_at=st.one_of(st.none(), _TEXT, _ANY))
def test_event_entries(event_id, user_id, summary, created_at):
    entry = EventEntry(event_id, user_id, summary, created_at)
    assert dump_audit_value(entry) == generic(entry.to_dict())


def test_other_values_and_none():
    assert dump_audit_value(None) is None
    snapshot = {"profiles": [{"key": "城市", "value": "杭州"}], "events": [], "n": 1.5}
    assert dump_audit_value(snapshot) == generic(snapshot)
    assert dump_audit_value([1, "二"]) == generic([1, "二"])
