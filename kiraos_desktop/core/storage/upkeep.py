"""What one tick of upkeep does on any store (MemoryStore.maintain(); the engine's watcher calls it)."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kiraos_desktop.core.storage.protocol import StoreUpkeep


def maintain(store: "StoreUpkeep", poll: bool = False, build: bool = False) -> None:
    """With `poll`: other processes' commits looked for (and published) and a checkpoint of whatever
    was written; without: a checkpoint only when our writes made one due. Then the recall and the
    user search indexes take what was written; with `build`, one step of building them for an
    existing database (recall first)."""
    if poll:
        store.poll_external_change()
        store.checkpoint()
    else:
        store.checkpoint_if_due()
    store.recall_catch_up()
    store.user_search_catch_up()
    if build and not store.recall_build_complete:
        store.recall_build_step()
    elif build and not store.user_search_build_complete:
        store.user_search_build_step()
