"""Every Qt model of the Skills page passes pytest-qt's model tester, filled and while changing."""
from __future__ import annotations

from PySide6.QtCore import Qt

from kiraos_desktop.core.skills import Problem
from kiraos_desktop.core.skills.manifest_fields import ParamRow
from kiraos_desktop.ui.skills.params_model import DESCRIPTION, ENUM, NAME, REQUIRED, TYPE, ParametersModel
from kiraos_desktop.ui.skills.problems_panel import ProblemsModel
from kiraos_desktop.ui.skills.skill_list import SkillFilterProxy, SkillListModel
from kiraos_desktop.ui.skills.user_picker import USER_ID_ROLE, UserListModel
from ui_skills_helpers import remember


def test_skill_list_model_and_proxy(qtmodeltester, engine):
    model = SkillListModel()
    model.set_skills(engine.skills.skills())
    qtmodeltester.check(model)
    proxy = SkillFilterProxy()
    proxy.setSourceModel(model)
    qtmodeltester.check(proxy)
    proxy.set_search("tarot")
    assert proxy.rowCount() == 1
    qtmodeltester.check(proxy)
    model.set_skills([])
    qtmodeltester.check(model)


def test_parameters_model(qtmodeltester):
    model = ParametersModel()
    model.set_rows([ParamRow("a", "string", "first", True, ["x", "y"]), ParamRow("b", "integer"),
                    ParamRow("c", ["string", "null"], "odd type")])
    qtmodeltester.check(model)
    assert model.index(0, ENUM).data() == "x, y"
    assert model.index(2, TYPE).data() == '["string", "null"]'
    assert model.index(0, REQUIRED).data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked
    assert not model.setData(model.index(1, NAME), "a")  # names stay unique
    assert not model.setData(model.index(1, NAME), "  ")
    assert model.setData(model.index(1, DESCRIPTION), "计数")
    assert not model.setData(model.index(0, TYPE), "date")
    assert model.setData(model.index(0, TYPE), "integer")  # enum values that no longer fit are dropped
    assert model.rows()[0].enum is None
    model.add_parameter()
    model.add_parameter()
    assert model.names()[-2:] == ["param", "param2"]
    assert model.move_parameter(3, -1) and model.names()[2:] == ["param", "c", "param2"]
    assert model.remove_parameter(0) and not model.remove_parameter(9)
    qtmodeltester.check(model)


def test_problems_model(qtmodeltester):
    model = ProblemsModel()
    model.set_problems([Problem("warning", "instruction", "w", 3), Problem("error", "name", "e", None),
                        Problem("error", "folder", "f")])
    qtmodeltester.check(model)
    assert model.index(0, 0).data().endswith("error")
    assert model.index(2, 1).data() == "instruction.md:3"


def test_user_list_model(qtmodeltester, engine):
    remember(engine, "alice")
    remember(engine, "bob")
    model = UserListModel(engine.store)
    model.refresh()
    qtmodeltester.check(model)
    assert model.rowCount() == 3 and model.index(0, 0).data(USER_ID_ROLE) == ""
    assert {model.index(r, 0).data(USER_ID_ROLE) for r in (1, 2)} == {"alice", "bob"}
    model.refresh("bo")
    assert model.rowCount() == 2 and model.user_id(1) == "bob"
    qtmodeltester.check(model)

