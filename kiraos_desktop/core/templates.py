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


@lru_cache(maxsize=None)
def template(name: str) -> jinja2.Template:
    # Cached here too: with auto_reload off a template never changes, and get_template() costs ~1 us.
    return environment().get_template(name)


def render_hot(name: str, **variables) -> str:
    """template(name).render(**variables) for a template that uses no globals, at half the cost.

    render() copies the environment's globals into every new context; a template rendered for
    each API write (memory_update.j2) needs none of them.
    """
    tpl = template(name)
    try:
        return tpl.environment.concat(tpl.root_render_func(tpl.new_context(variables, shared=True)))
    except Exception:
        return tpl.environment.handle_exception()
