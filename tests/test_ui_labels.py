"""Words the window shows for stored values: who made a change and the server's route labels, in the
window's language; the whole of a change the History column cuts."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from kiraos_desktop.api.counters import REJECTED, UNMATCHED
from kiraos_desktop.core.memory.records import ChangeRecord
from kiraos_desktop.ui.i18n import apply_language, language_manager
from kiraos_desktop.ui.route_counters import RouteCountersModel
from kiraos_desktop.ui.users.history_model import ChangeField, change_text, change_tooltip


@pytest.fixture
def chinese(qapp):
    apply_language("zh_CN")
    yield
    language_manager().clear()


def _change(actor="tool", action="event_update", before=None, after=None):
    return ChangeRecord(1, "2026-12-01T10:00:00", "u1", actor, action, "7", before, after)


def test_actors_and_route_labels_are_translated(chinese):
    assert change_text(_change(actor="tool"), ChangeField.ACTOR) == "机器人（工具调用）"
    assert change_text(_change(actor="gui"), ChangeField.ACTOR) == "窗口"
    assert change_text(_change(actor="plugin-x"), ChangeField.ACTOR) == "plugin-x"  # unknown: as stored
    model = RouteCountersModel()
    model.set_counts({REJECTED: 3, UNMATCHED: 1, "/v1/context": 5})
    shown = {model.index(row, 0).data(Qt.ItemDataRole.DisplayRole) for row in range(model.rowCount())}
    assert shown == {"（已拒绝）", "（无此路由）", "/v1/context"}


def test_the_tooltip_holds_the_whole_change(qapp):
    long_before, long_after = "旧" * 150, "新" * 150
    change = _change(before={"id": 7, "user_id": "u1", "summary": long_before, "created_at": "2026-12-01"},
                     after={"id": 7, "user_id": "u1", "summary": long_after, "created_at": "2026-12-01"})
    assert "…" in change_text(change, ChangeField.CHANGE)
    tip = change_tooltip(change, ChangeField.CHANGE)
    assert tip.splitlines()[0] == f"{long_before} → {long_after}"


def test_the_confidence_header_explains_the_marks(qapp, engine):
    from kiraos_desktop.ui.users.profile_model import COL_CONFIDENCE, ProfileModel

    model = ProfileModel(engine.store, None)
    tip = model.headerData(COL_CONFIDENCE, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert "✓ 0.8 or more" in tip and "? 0.5 or more" in tip and "~ below 0.5" in tip
