"""Oversized numbers and dates get a 4xx and change nothing; an acknowledged expiry is one SQLite can compare."""
from __future__ import annotations

import json

import pytest

from api_helpers import AUTH, api, api_engine, api_server, error_of, plugin_error_of, remember  # noqa: F401
from test_api_input_text import seed, snapshot

DIGITS = "1" * 4301  # one past Python's limit for converting text to int
JSON = {**AUTH, "Content-Type": "application/json"}


def update(**fields) -> dict:
    return {"user_id": "u", "arguments": {"operations": [{"op": "set", "key": "k2", "value": "v", **fields}]}}


def test_a_4301_digit_max_chars_is_a_422(api, api_engine):
    seed(api_engine)
    for query in (f"user_id=u&max_chars={DIGITS}", f"max_chars={DIGITS}&user_id=u", f"user_id=u&max_chars=0{DIGITS}"):
        reply = api.get("/v1/context?" + query)
        assert reply.status_code == 422, reply.text
        assert error_of(reply)["details"] == {"field": "max_chars"}
    reply = api.get(f"/v1/context?user_id=u&max_chars={'0' * 5000}20")  # leading zeros count for int() too
    assert reply.status_code == 200 and reply.json()["truncated"] is True


@pytest.mark.parametrize("method", ["PUT", "DELETE"])
def test_a_4301_digit_event_id_is_not_found(api, api_engine, method):
    seed(api_engine)
    before = snapshot(api_engine)
    for event_id in (DIGITS, "0" * 5000 + "99"):
        reply = api.request(method, f"/api/users/u/events/{event_id}",
                            json={"event_summary": "x"} if method == "PUT" else None)
        assert reply.status_code == 404, reply.text
    assert "not found" in plugin_error_of(reply)
    assert snapshot(api_engine) == before


@pytest.mark.parametrize("ttl", [DIGITS + "d", "1d" + DIGITS + "m", DIGITS + "w", "0" * 5000 + "1" * 10 + "m"])
def test_a_4301_digit_ttl_is_refused_like_any_bad_ttl(api, api_engine, ttl):
    """memory_update refuses a bad operation in its reply (`skip: ...`) and writes nothing for it."""
    seed(api_engine)
    before = snapshot(api_engine)
    reply = api.post("/v1/tools/memory_update", json=update(ttl=ttl))
    assert reply.status_code == 200, reply.text
    content = reply.json()["content"]
    assert content.startswith("已完成 0 项记忆操作: skip: set k2: 无效的 ttl") or "ttl" in content, content
    assert api_engine.store.get_profile("u", "k2") is None
    assert snapshot(api_engine)[:2] == before[:2]


@pytest.mark.parametrize("number", ["1" + "0" * 400, "1" + "0" * 400 + ".0", "1e400", "-1e400"])
def test_a_confidence_beyond_a_double_is_refused(api, api_engine, number):
    seed(api_engine)
    before = snapshot(api_engine)
    body = json.dumps(update()).replace('"value": "v"', f'"value": "v", "confidence": {number}')
    reply = api.post("/v1/tools/memory_update", content=body, headers=JSON)
    assert reply.status_code == 200 and "skip: set k2: 置信度" in reply.json()["content"], reply.text
    reply = api.put("/api/users/u/profiles/k2", content=f'{{"value": "v", "confidence": {number}}}', headers=JSON)
    assert reply.status_code == 400 and plugin_error_of(reply).startswith("confidence: "), reply.text
    assert len(plugin_error_of(reply)) < 200
    assert snapshot(api_engine)[:2] == before[:2]


@pytest.mark.parametrize("expires_at", ["9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00",
                                        "9999-12-31T23:59:59.999999", "9999-12-31T23:59:59.9995"])
def test_an_expiry_sqlite_cannot_compare_is_a_400(api, api_engine, expires_at):
    seed(api_engine)
    before = snapshot(api_engine)
    reply = api.put("/api/users/u/profiles/k2", json={"value": "v", "expires_at": expires_at})
    assert reply.status_code == 400, reply.text
    assert plugin_error_of(reply).startswith("expires_at: ")
    assert snapshot(api_engine) == before


@pytest.mark.parametrize("expires_at", ["9999-12-31T23:59:59", "9999-12-31", "9999-12-31T23:59:59.999"])
def test_ok_means_visible_up_to_the_last_storable_second(api, api_engine, expires_at):
    reply = api.put("/api/users/u/profiles/k2", json={"value": "v", "expires_at": expires_at})
    assert reply.status_code == 200, reply.text
    assert api.get("/v1/context", params={"user_id": "u"}).json()["context"] == "[u:basic] k2=v(?)"
    assert api_engine.store.stats().total_profiles == 1
    assert [p.key for p in api_engine.store.get_profiles("u", include_expired=False)] == ["k2"]


def test_an_import_with_an_expiry_sqlite_cannot_compare_is_refused(tmp_path):
    from kiraos_desktop.core.transfer import export_import as transfer

    path = tmp_path / "in.json"
    path.write_text(json.dumps({"format": transfer.EXPORT_FORMAT, "version": transfer.EXPORT_VERSION, "users": [
        {"user_id": "u", "profiles": [{"key": "k", "value": "x", "expires_at": "9999-12-31T23:59:59.999999"}]}]}))
    with pytest.raises(transfer.TransferError, match="expires_at"):
        transfer.read_import_file(path)


def test_the_window_form_refuses_such_an_expiry_too():
    from kiraos_desktop.ui.users.expiry import ExpiryInputError, parse_expiry_input

    for text in ("9999-12-31T23:59:59.999999", "9999-12-31T23:59:59-14:00"):
        with pytest.raises(ExpiryInputError):
            parse_expiry_input(text)
    assert parse_expiry_input("9999-12-31 23:59") == "9999-12-31T23:59:00"


def test_a_json_number_of_4301_digits_is_a_400_in_plain_words(api, api_engine):
    seed(api_engine)
    before = snapshot(api_engine)
    body = json.dumps(update()).replace('"value": "v"', f'"value": "v", "confidence": {DIGITS}')
    reply = api.post("/v1/tools/memory_update", content=body, headers=JSON)
    assert reply.status_code == 400 and error_of(reply)["code"] == "invalid_json"
    assert "more than 4300 digits" in error_of(reply)["message"] and "sys." not in error_of(reply)["message"]
    assert snapshot(api_engine) == before
