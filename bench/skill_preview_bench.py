"""Skill workbench benchmark: the live preview of a 20 KB instruction must take < 30 ms (issue 6).

python bench/skill_preview_bench.py [--runs 200] [--kib 20]

Three ~20 KB instructions (CJK text, an emoji, a user with memory in <context>): "plain" with
placeholders on most lines, "jinja2-prose" (a realistic long Jinja2 instruction) and
"jinja2-dense" (a stress case: a conditional and three expressions every five lines, whose
Jinja2 compile alone is slow). Every run edits the text, as typing does, so compiled-template
caches do not hide the cost. Median and p95 of:
  preview         render + tool-result wrapper of the edited text (draft.render_preview)
  preview_cached  the same for unchanged text (argument or user changes)
  preview_spans   the highlight regions of the result
  highlight       one full QSyntaxHighlighter pass over the instruction editor's document
  problems        the engine's problem check of the edited text (draft.draft_problems)
  worker          problems + preview: what the worker thread computes after the 150 ms debounce
  gui_apply       what the GUI thread then does (problems table, preview text + highlighting)
PASS/FAIL: the medians of preview and highlight < 30 ms for "plain" and "jinja2-prose"; the
stress case is reported (it runs on the worker thread, so typing never waits for it).
Writes bench/out/skill_preview_bench.json; exit status 1 on FAIL. Runs on its own (offscreen Qt).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
OUT = REPO / "bench" / "out"
TARGET_MS = 30.0

PARAMETERS = {"type": "object", "properties": {
    "question": {"type": "string", "description": "问题"},
    "style": {"type": "string", "description": "风格"},
    "count": {"type": "integer", "minimum": 1, "maximum": 10},
}, "required": ["question"]}
ARGUMENTS = {"question": "这次面试能顺利吗？<认真> & {style}", "style": "温柔", "count": 3}


def instruction(kib: int, kind: str) -> str:
    """About `kib` KiB of UTF-8 Markdown. "plain": placeholders on most lines; "jinja2-prose": a
    realistic long Jinja2 instruction (prose, a conditional and an expression every ~10 sections);
    "jinja2-dense": a stress case with a conditional and three expressions every five lines."""
    lines = ["# 基准技能 🔮", ""]
    prose = "这一段是普通的说明文字，描述技能应该如何执行，包含若干细节和注意事项，用来模拟真实的长指令。" * 2
    n = 0
    while len("\n".join(lines).encode("utf-8")) < kib * 1024:
        n += 1
        if kind == "plain":
            lines += [f"## 第 {n} 部分", f"- 风格：{{style}}，第 {n} 条说明，未声明的 {{unknown}} 保持原样。",
                      f"1. 用户想问的是 {{question}}，请结合上下文认真回答，数量 {{count}}。",
                      f"2. 这一行没有占位符，只是普通的中文说明文字，用来填充长度 {n}。", ""]
        elif kind == "jinja2-prose":
            lines += [f"## 第 {n} 节", prose, ""]
            if n % 10 == 0:
                lines += ["{% if style %}- 风格：{{ style }}{% else %}- 默认风格{% endif %}",
                          "问题：{{ question }}", ""]
        else:
            lines += [f"## 第 {n} 部分", f"{{% if style %}}- 风格：{{{{ style }}}}，第 {n} 条说明。{{% endif %}}",
                      f"1. 用户想问的是 {{{{ question }}}}，请结合上下文认真回答，数量 {{{{ count }}}}。",
                      f"2. 这一行没有占位符，只是普通的中文说明文字，用来填充长度 {n}。", ""]
    return "\n".join(lines)


def pyside_none_leak() -> int:
    """References to None that 100 void PySide6 calls drop (0 when the binding is sound; 100 with
    PySide6 6.12.0 on Python 3.11, which pyproject.toml's version pin keeps out)."""
    from PySide6.QtCore import QObject

    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(100):
        probe.setObjectName("probe")
    return before - sys.getrefcount(None)


def timed(fn, runs: int, warm: bool = True) -> dict:
    """Median and p95 of `fn(i)` for i in range(runs) (i lets a run use its own input)."""
    if warm:
        fn(-1)
    samples = []
    for i in range(runs):
        start = time.perf_counter()
        fn(i)
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return {"median_ms": round(statistics.median(samples), 3),
            "p95_ms": round(samples[max(0, int(len(samples) * 0.95) - 1)], 3), "runs": runs}


CASES = ("plain", "jinja2-prose", "jinja2-dense")
STRESS = ("jinja2-dense",)  # reported, not part of PASS/FAIL (see the module docstring)


def bench(kib: int, runs: int) -> dict:
    from PySide6.QtGui import QTextDocument
    from PySide6.QtWidgets import QApplication

    from kiraos_desktop.core.engine import Engine
    from kiraos_desktop.core.tool_registry import SKILL_CONTEXT_EVENTS
    from kiraos_desktop.ui.skills import SkillsPage
    from kiraos_desktop.core.skill_draft import draft_problems, preview_spans, render_preview
    from kiraos_desktop.ui.skills.highlighters import InstructionHighlighter
    from kiraos_desktop.core.skills.manifest_fields import dump_manifest
    from kiraos_desktop.ui.skills.preview_runner import PreviewJob, analyse
    from kiraos_desktop.ui.skills.theme import colors_for

    app = QApplication.instance() or QApplication([])
    results: dict = {"target_ms": TARGET_MS, "kib": kib, "cases": {}}
    results["pyside_none_leak_per_100_calls"] = pyside_none_leak()  # guarded: importing kiraos_desktop.ui
    slow = max(10, runs // 10)
    with tempfile.TemporaryDirectory() as tmp:
        engine = Engine.open(data_dir=Path(tmp) / "data")
        try:
            engine.store.set_profile("bench_user", "昵称", "小明", actor="cli", confidence=0.9)
            engine.store.set_profile("bench_user", "喜欢猫", "是", actor="cli", category="preference")
            for day in range(5):
                engine.store.add_event("bench_user", f"第 {day} 天完成半马训练", actor="cli")
            memory = engine.context.block_text("bench_user", SKILL_CONTEXT_EVENTS)
            page = SkillsPage(engine.skills, engine.store, engine.context, engine)
            page.resize(1280, 800)
            page.show()
            app.processEvents()
            others = tuple(engine.skills.skills())
            for kind in CASES:
                text = instruction(kib, kind)
                # every run edits the text, as typing does (so no compiled-template cache hit)
                edited = [text + f"\n末尾 {i}" for i in range(-1, max(runs, 2 * slow) + 1)]
                manifest = {"name": "bench", "trigger": "基准", "exclude": "不要在测试以外使用",
                            "parameters": PARAMETERS}
                if kind != "plain":
                    manifest["template"] = "jinja2"
                manifest_text = dump_manifest(manifest)
                case: dict = {"bytes": len(text.encode("utf-8")), "lines": text.count("\n") + 1}
                result = render_preview("bench", text, manifest, ARGUMENTS, memory)
                assert not result.is_error and not result.refused, result
                n = slow if kind != "plain" else runs

                case["preview"] = timed(lambda i: render_preview("bench", edited[i + 1], manifest, ARGUMENTS,
                                                                 memory), n)
                case["preview_cached"] = timed(lambda i: render_preview("bench", text, manifest, ARGUMENTS,
                                                                        memory), runs)
                case["preview_spans"] = timed(lambda i: preview_spans(result.text, manifest["exclude"]), runs)
                document = QTextDocument()
                document.setPlainText(text)
                highlighter = InstructionHighlighter(document, colors_for(page.palette()))
                highlighter.set_declared(PARAMETERS["properties"], "plain" if kind == "plain" else "jinja2")
                case["highlight"] = timed(lambda i: highlighter.rehighlight(), slow)
                case["problems"] = timed(lambda i: draft_problems(manifest_text, edited[i + 1], Path(tmp) / "x",
                                                                  others, manifest), n)

                def job(i):  # its own edits: the preview figure above already compiled `edited`
                    return PreviewJob(i, Path(tmp) / "x", manifest_text, f"{text}\n工作 {i}", manifest, others,
                                      "result", ARGUMENTS, "bench_user")

                case["worker"] = timed(lambda i: analyse(job(i), page._memory_block), n)
                outcomes = [analyse(job(i), page._memory_block) for i in (0, 1)]
                page.open_skill("tarot_reading", ask=False)
                case["gui_apply"] = timed(lambda i: page._apply(outcomes[i % 2]), slow)
                page.editor.manifest_editor.json_edit.setPlainText(manifest_text)
                page.editor.instruction_edit.setPlainText(text)
                page.workbench.args_form.set_values(ARGUMENTS)
                page.workbench.user_picker.set_user("bench_user")
                page.refresh_preview()
                assert page.workbench.preview.text() == result.text
                page.revert()
                results["cases"][kind] = case
            page.dispose()
            page.deleteLater()
            app.processEvents()
        finally:
            engine.close()
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="measured runs per figure (default 200)")
    parser.add_argument("--kib", type=int, default=20, help="instruction size in KiB (default 20)")
    args = parser.parse_args(argv)
    results = bench(args.kib, args.runs)
    ok = True
    print(f"skill preview benchmark: {args.kib} KiB instruction, target < {TARGET_MS:.0f} ms "
          "(median of preview and of highlight)")
    print(f"{'case':13} {'figure':15} {'median ms':>10} {'p95 ms':>10}")
    for name, case in results["cases"].items():
        for figure in ("preview", "preview_cached", "preview_spans", "highlight", "problems", "worker",
                       "gui_apply"):
            stats = case[figure]
            print(f"{name:13} {figure:15} {stats['median_ms']:10.3f} {stats['p95_ms']:10.3f}")
        within = case["preview"]["median_ms"] < TARGET_MS and case["highlight"]["median_ms"] < TARGET_MS
        case["pass"] = within
        if name in STRESS:
            verdict = "within target" if within else "over target (stress case, runs on the worker thread)"
        else:
            ok = ok and within
            verdict = "PASS" if within else "FAIL"
        print(f"{name:13} {'':15} {case['bytes']} bytes, {case['lines']} lines: preview + highlight {verdict}")
    results["pass"] = ok
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "skill_preview_bench.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
