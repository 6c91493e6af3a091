"""KiraOS Desktop: memory manager and skill workbench for chatbots."""
from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("kiraos-desktop")
except _metadata.PackageNotFoundError:  # running from a source tree without install
    __version__ = "0.0.0+source"
