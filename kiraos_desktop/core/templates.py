"""The one Jinja2 environment for protocol texts (context, tool results), loaded from resources/."""
from __future__ import annotations

from functools import lru_cache

import jinja2

from kiraos_desktop.core.resources import templates_dir

TEMPLATE_NAMES = ("context.j2", "memory_query.j2", "memory_update.j2", "memory_clear.j2", "skill_guard.j2",
                  "skill_result.j2")


@lru_cache(maxsize=None)
def environment() -> jinja2.Environment:
    # Plain text for an LLM, not HTML: escaping is done by sanitising values, so autoescape is off.
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        autoescape=False,
        keep_trailing_newline=False,
        undefined=jinja2.StrictUndefined,
        auto_reload=False,
    )


def template(name: str) -> jinja2.Template:
    return environment().get_template(name)
