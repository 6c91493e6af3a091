"""The three memory tools the LLM calls: memory_update, memory_query, memory_clear (plugin texts)."""
from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any, Callable

from kiraos_desktop.core.context.builder import sanitize
from kiraos_desktop.core.recall.ranking import Recall, matching_profiles
from kiraos_desktop.core.memory.records import (
    CATEGORIES,
    CATEGORY_RANK,
    MAX_EVENT_CHARS,
    MAX_KEY_CHARS,
    MAX_TAG_CHARS,
    MAX_VALUE_CHARS,
    LimitError,
    ValidationError,
    check_confidence,
    check_tag,
    check_user_id,
    check_value,
)
from kiraos_desktop.core.storage.rows import ROW_CONFIDENCE, ROW_LIVE, ROW_VALUE, live_head, stored_confidence
from kiraos_desktop.core.templates import render_hot, template
from kiraos_desktop.core.timeutil import TTLError, parse_ttl, to_iso

if TYPE_CHECKING:
    from kiraos_desktop.core.storage.protocol import MemoryStore

SUMMARY_ITEMS = 5
#: What an operation of memory_update did: stored something, was refused (skip, conflict), or found the
#: memory as asked already (a repeated event, a del of a key that is not there).
_APPLIED, _REFUSED, _UNCHANGED = 1, 0, -1
#: KiraOS plugin 2.x refuses a set over a live entry more confident than the new one by more than this.
CONFLICT_GAP = 0.2
#: An `event` equal (recall_text.repeat_key) to one of the user's events this recent is not stored again.
REPEAT_WINDOW = timedelta(hours=24)


def _by_category(profiles: list) -> list:
    """Entries grouped by category in priority order, keeping the given order within each."""
    return sorted(profiles, key=lambda p: (CATEGORY_RANK.get(p.category, len(CATEGORY_RANK)), p.category))


class MemoryTools:
    def __init__(self, store: "MemoryStore", settings_getter: Callable[[], Any]):
        self._store = store
        self._settings = settings_getter
        self._recall = Recall(store)

    def update(self, user_id: str, operations: list, actor: str = "tool") -> str:
        """Apply every operation in one transaction; refused ones become `skip: reason` results."""
        return self.update_result(user_id, operations, actor)[0]

    def update_result(self, user_id: str, operations: list, actor: str = "tool") -> tuple[str, bool]:
        """update()'s reply, and whether it is an error for the host: nothing was stored and at least one
        operation was refused (a skip or a conflict). An `event (repeat)` or a `del` of a key that is
        not there changes nothing but refuses nothing: the memory already is as the host asked."""
        check_user_id(user_id)
        if not isinstance(operations, list):
            raise ValidationError("operations", "must be a list of operations")
        return self._store.run_batch(actor, lambda batch: self._update(batch, user_id, operations))[0]

    def _update(self, batch, user_id: str, operations: list) -> tuple[str, bool]:
        """update_result() inside its batch (run again whole when the store retries it)."""
        results: list[str] = []
        done = refused = 0
        known = batch.profile_rows(user_id)  # read once, kept current by the writes below
        for op in operations:
            text, applied = self._apply(batch, user_id, op, known)
            results.append(text)
            done += applied == _APPLIED
            refused += applied == _REFUSED
        batch.leave_profile_rows(user_id, known)
        head, live = live_head(known, SUMMARY_ITEMS)
        summary = [f"{sanitize(key)}={sanitize(value)}" for key, value in head]
        # Inside the batch: if the reply cannot be made, nothing is written.
        reply = render_hot("memory_update.j2", done=done, results=results, summary=summary,
                           more=max(0, live - SUMMARY_ITEMS))
        return reply, not done and bool(refused)

    def _apply(self, batch, user_id: str, op: Any, known: dict) -> tuple[str, int]:
        """(the operation's result line, _APPLIED, _REFUSED or _UNCHANGED)."""
        if not isinstance(op, dict):
            return "skip: 操作格式无效（应为对象）", _REFUSED
        kind = op.get("op")
        if kind == "set":
            return self._set(batch, user_id, op, known)
        if kind == "event":
            return self._event(batch, user_id, op)
        if kind == "del":
            key = op.get("key")
            if not isinstance(key, str) or not key.strip():
                return "skip: del 缺少 key", _REFUSED
            found = batch.delete_profile(user_id, key.strip(), known)
            return f"del {sanitize(key.strip())}: {'ok' if found else 'not found'}", _APPLIED if found else _UNCHANGED
        return f"skip: 未知操作 {_quoted(kind)}（可用: set, event, del）", _REFUSED

    def _event(self, batch, user_id: str, op: dict) -> tuple[str, int]:
        value, tag = op.get("value"), op.get("tag")
        try:
            tag = check_tag(tag)
        except ValidationError:
            return f"skip: event tag 无效（应为不超过 {MAX_TAG_CHARS} 字的文本）", _REFUSED
        # Data without tags (KiraOS 1.x, ours) stores the event and says the tag was not kept.
        dropped = tag is not None and not self._store.event_tags
        if dropped:
            tag = None
        if isinstance(value, str) and value.strip() and batch.is_recent_event(user_id, value, REPEAT_WINDOW):
            return f"event (repeat): {sanitize(value)}", _UNCHANGED
        try:
            batch.add_event(user_id, value, tag=tag)
        except ValidationError:
            if isinstance(value, str) and value.strip():
                return f"skip: event 超过 {MAX_EVENT_CHARS} 字", _REFUSED
            return "skip: event 缺少 value", _REFUSED
        label = f"event #{sanitize(tag)}" if tag else "event"
        note = "（未保存 tag：此记忆库不支持事件标签）" if dropped else ""
        return f"{label}: {sanitize(value)}{note}", _APPLIED

    def _set(self, batch, user_id: str, op: dict, known: dict) -> tuple[str, int]:
        key, value = op.get("key"), op.get("value")
        if not isinstance(key, str) or not key.strip() or value is None or (isinstance(value, str) and not value.strip()):
            return "skip: set 缺少 key 或 value", _REFUSED
        label = sanitize(key.strip())
        category = op.get("category") or "basic"
        if category not in CATEGORIES:
            return f"skip: set {label}: 无效的分类 {_quoted(category)}（可用: {', '.join(CATEGORIES)}）", _REFUSED
        ttl = op.get("ttl")
        expires_at = None
        if ttl not in (None, ""):
            try:
                expires_at = to_iso(batch.now_moment + parse_ttl(ttl))
            except TTLError:
                return f"skip: set {label}: 无效的 ttl {_quoted(ttl)}（可用格式: 30m, 12h, 7d, 2w, 1d12h）", _REFUSED
        stored = known.get(key.strip())  # under the key check_key() keeps; known changes below
        force = _flag(op.get("force", False))
        if force is None:
            return f"skip: set {label}: force 必须是 true 或 false", _REFUSED
        rule = self._store.layout is not None and self._store.layout.confidence_conflicts
        if rule and not force and stored is not None and stored[ROW_LIVE]:
            refused = _conflict(label, stored, value, op.get("confidence", 0.5))
            if refused:
                return refused, _REFUSED
        try:
            entry = batch.set_profile(user_id, key, value, category=category,
                                      confidence=op.get("confidence", 0.5), expires_at=expires_at, known=known)
        except LimitError:
            return f"skip: set {label}: 画像已达上限（{self._store.max_profiles_per_user} 条）", _REFUSED
        except ValidationError as exc:
            return f"skip: set {label}: {_FIELD_REASONS.get(exc.field, sanitize(exc.message))}", _REFUSED
        verb = "updated" if stored is not None and stored[ROW_LIVE] else "set"  # replaced an unexpired entry
        text = f"{verb} {sanitize(entry.key)}={sanitize(entry.value)} [{entry.category}]"
        if expires_at:
            text += f" (expires: {sanitize(ttl)})"
        if rule and force:
            text += " [forced]"
        return text, _APPLIED

    def query(self, user_id: str, query: str | None = None) -> str:
        """The plugin's dump; with a `query`, only the entries and events that match it, most relevant
        first (the whole dump when nothing matches)."""
        check_user_id(user_id)
        profiles = self._store.get_profiles(user_id, include_expired=False)
        limit = self._settings().max_events_per_user
        events = None
        if query:
            words, relevant = self._recall.relevant_events(user_id, query)
            matching = matching_profiles(words, profiles)
            if relevant or matching:
                profiles, events = _by_category(matching), [r.event for r in relevant[:limit]]
        if events is None:
            events = self._store.get_events(user_id, limit=limit)
        categories: list[dict] = []
        for p in profiles:
            if not categories or categories[-1]["name"] != p.category:
                categories.append({"name": sanitize(p.category), "entries": []})
            categories[-1]["entries"].append({
                "key": sanitize(p.key), "value": sanitize(p.value), "confidence": p.confidence,
                "expires": (p.expires_at or "")[:10]})
        event_rows = [{"date": (e.created_at or "")[:10], "summary": sanitize(e.summary)} for e in events]
        return render_hot("memory_query.j2", categories=categories, events=event_rows)

    def clear(self, user_id: str, actor: str = "tool") -> str:
        check_user_id(user_id)
        profiles, events = self._store.clear_user(user_id, actor=actor)
        return template("memory_clear.j2").render(profiles=profiles, events=events)


_FIELD_REASONS = {
    "confidence": "置信度必须是 0 到 1 之间的数字",
    "key": f"key 过长（最多 {MAX_KEY_CHARS} 字）",
    "value": f"value 无效或过长（最多 {MAX_VALUE_CHARS} 字）",
    "user_id": "user_id 无效",
}


def _flag(value: Any) -> bool | None:
    """A boolean an LLM sent (true/false, or the texts true/false/1/0/yes/no); None for anything else."""
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        return {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}.get(value.strip().lower())
    return None


def _conflict(label: str, stored: tuple, value: Any, confidence: Any) -> str | None:
    """KiraOS plugin 2.x's rule (its reply text): a set that would replace a live entry's value with
    another one is refused when the stored entry is more than CONFLICT_GAP more confident; None when
    it may go ahead (an invalid value or confidence is refused by the write itself)."""
    try:
        new_value, new_confidence = check_value(value), check_confidence(confidence)
    except ValidationError:
        return None
    old_value, old_confidence = stored[ROW_VALUE], stored_confidence(stored[ROW_CONFIDENCE])
    # Rounded: 0.8 - 0.6 is 0.20000000000000007 in floats, and the reply promises that the confidence
    # it names (old - gap, to two places) goes through.
    if new_value == old_value or round(old_confidence - new_confidence, 9) <= CONFLICT_GAP:
        return None
    return (f"conflict {label}: 现值 '{sanitize(old_value)}' (置信度 {old_confidence:.2f}) 高于新值置信度 "
            f"{new_confidence:.2f}。如确认要覆盖，请提高 confidence 至 ≥{old_confidence - CONFLICT_GAP:.2f} "
            f"或在操作上加 force=true。")


def _quoted(value: Any) -> str:
    return '"' + sanitize(value) + '"'

