"""A skill edited and saved in the workbench shows up changed in the MCP tool and prompt lists at once."""
import anyio
import pytest

from api_helpers import TOKEN
from kiraos_desktop.api.server import ApiServer
from mcp_helpers import http_client
from ui_skills_helpers import OFFSCREEN_NOTE, make_page  # noqa: F401

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)


def test_saved_skill_edits_reach_mcp_lists(qtbot, engine):
    server = ApiServer(engine, "127.0.0.1", 0, TOKEN)
    server.start()
    page = make_page(qtbot, engine)
    try:
        assert page.open_skill("tarot_reading")
        form = page.editor.manifest_editor.form
        form.trigger_edit.setPlainText("用户想算塔罗时调用（改过）")
        form.description_edit.selectAll()
        qtbot.keyClicks(form.description_edit, "Tarot, edited")  # typed, as a user does
        assert page.save()

        async def lists():
            async with http_client(server.url) as client:
                return (await client.list_tools()).tools, (await client.list_prompts()).prompts

        tools, prompts = anyio.run(lists)
        tool = next(t for t in tools if t.name == "tarot_reading")
        prompt = next(p for p in prompts if p.name == "tarot_reading")
        assert tool.description == "用户想算塔罗时调用（改过）"
        assert prompt.description == "Tarot, edited"
    finally:
        page.dispose()
        server.stop()
