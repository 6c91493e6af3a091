"""Shared helpers for the skill engine tests: writing skill folders and a fake memory tool set."""
from __future__ import annotations

import json
from pathlib import Path


def manifest(name: str, **fields) -> dict:
    data = {"name": name, "description": f"{name} skill", "trigger": f"call {name} when asked"}
    data.update(fields)
    return data


def write_skill(root: Path, folder: str, manifest_data=None, instruction: str | bytes | None = "Do it.",
                ) -> Path:
    """Create root/folder with manifest.json (dict -> JSON, str/bytes -> as is) and instruction.md.
    None leaves that file out."""
    path = Path(root) / folder
    path.mkdir(parents=True, exist_ok=True)
    if manifest_data is None:
        manifest_data = manifest(folder)
    if manifest_data is not False:
        if isinstance(manifest_data, bytes):
            (path / "manifest.json").write_bytes(manifest_data)
        elif isinstance(manifest_data, str):
            (path / "manifest.json").write_text(manifest_data, encoding="utf-8")
        else:
            (path / "manifest.json").write_text(json.dumps(manifest_data, ensure_ascii=False, indent=2),
                                                encoding="utf-8")
    if instruction is not None:
        if isinstance(instruction, bytes):
            (path / "instruction.md").write_bytes(instruction)
        else:
            (path / "instruction.md").write_text(instruction, encoding="utf-8")
    return path


def params(required=(), **props) -> dict:
    """{"type": "object", "properties": {name: {"type": T}}, "required": [...]}."""
    schema = {"type": "object",
              "properties": {k: (v if isinstance(v, dict) else {"type": v}) for k, v in props.items()}}
    if required:
        schema["required"] = list(required)
    return schema


class FakeMemory:
    """Records calls; answers like the memory tools would (text only)."""

    def __init__(self):
        self.calls: list[tuple] = []

    def update_result(self, user_id: str, operations: list, actor: str) -> tuple[str, bool]:
        self.calls.append(("update", user_id, operations, actor))
        return f"已完成 {len(operations)} 项记忆操作: ", False

    def query(self, user_id: str, query: str | None = None) -> str:
        self.calls.append(("query", user_id))
        return "该用户暂无记忆数据。"

    def clear(self, user_id: str, actor: str) -> str:
        self.calls.append(("clear", user_id, actor))
        return "已清除全部记忆: 删除了 0 条画像和 0 条事件记录。"


def problems_of(skill, field=None, severity=None):
    return [p for p in skill.problems
            if (field is None or p.field == field) and (severity is None or p.severity == severity)]
