"""Computes problems and the preview of the edited skill, inline or on a worker thread."""
from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject, Signal

from kiraos_desktop.core.skills import Problem, Skill
from kiraos_desktop.core import skill_draft as drafts
from kiraos_desktop.ui.tasks import TaskLane, plain

log = logging.getLogger(__name__)
RESULT = "result"


@dataclass(frozen=True)
class PreviewJob:
    """Everything the analysis needs, copied on the GUI thread (the worker touches no widget)."""

    generation: int
    folder: Path
    manifest_text: str
    instruction: str
    fallback_manifest: dict
    others: tuple[Skill, ...]
    mode: str  # "result" or a tool format ("openai", "anthropic", "mcp")
    arguments: dict
    user: str
    agent: bool = False  # `instruction` is the whole SKILL.md of an Agent Skills folder
    missing_marker: str = ""  # shown in place of a missing required argument (with `{name}`)


@dataclass(frozen=True)
class PreviewOutcome:
    generation: int
    problems: list[Problem]
    manifest: dict
    skill_name: str
    mode: str
    result: drafts.PreviewResult | None = None  # mode "result"
    spans: list = field(default_factory=list)  # highlight regions of result.text
    definition: str = ""  # tool formats
    failure: str = ""  # an unexpected exception (a bug): shown instead of a preview

    @property
    def errors(self) -> int:
        return sum(1 for p in self.problems if p.is_error)


def analyse(job: PreviewJob, memory_block: Callable[[str], str]) -> PreviewOutcome:
    """Problems of the unsaved text, then the tool result (or the tool definition). Pure Python."""
    if job.agent:
        data, instruction, problems = drafts.draft_agent(job.instruction, job.folder, job.others)
    else:
        instruction = job.instruction
        data, problems = drafts.draft_problems(job.manifest_text, job.instruction, job.folder, job.others,
                                               job.fallback_manifest)
    manifest = data if data is not None else job.fallback_manifest
    skill = drafts.draft_skill(manifest, job.folder)
    if job.mode != RESULT:
        return PreviewOutcome(job.generation, problems, manifest, skill.name, job.mode,
                              definition=drafts.tool_definition_text(manifest, job.folder, job.mode))
    memory = memory_block(job.user) if job.user else ""
    result = drafts.render_preview(skill.name, instruction, manifest, job.arguments, memory, job.missing_marker)
    spans = drafts.preview_spans(result.text, manifest.get("exclude")) if result.text and not result.is_error \
        else []
    return PreviewOutcome(job.generation, problems, manifest, skill.name, job.mode, result, spans)


class PreviewRunner(QObject):
    """Runs `analyse` on a TaskLane thread so a large Jinja2 template (whose compile can take
    longer than a frame) never blocks typing. Only the newest waiting job is kept; `finished`
    arrives on the GUI thread and the page drops outcomes of older generations."""

    finished = Signal(object)  # PreviewOutcome

    def __init__(self, memory_block: Callable[[str], str], parent: QObject | None = None):
        super().__init__(parent)
        self._memory_block = memory_block
        self._worker = TaskLane("skill-preview", self)
        self._worker.finished.connect(self._on_worker_finished)

    def compute(self, job: PreviewJob) -> PreviewOutcome:
        """Inline, on the caller's thread."""
        return self._safe_analyse(job)

    def submit(self, job: PreviewJob) -> None:
        self._worker.submit(plain(functools.partial(self._safe_analyse, job)))

    def shutdown(self) -> None:
        self._worker.stop()

    def _safe_analyse(self, job: PreviewJob) -> PreviewOutcome:
        try:
            return analyse(job, self._memory_block)
        except Exception as exc:  # a bug must show up in the pane, not kill the worker
            log.exception("skill preview failed")
            return PreviewOutcome(job.generation, [], job.fallback_manifest, "", job.mode,
                                  failure=f"{type(exc).__name__}: {exc}")

    def _on_worker_finished(self, _ticket: int, outcome, _error) -> None:
        if outcome is not None:  # _safe_analyse returns an outcome for every job
            self.finished.emit(outcome)
