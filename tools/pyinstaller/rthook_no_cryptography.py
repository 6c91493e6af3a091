"""Frozen build runtime hook: stand-ins for the few `cryptography` names the MCP SDK imports.

The frozen build leaves the cryptography package out (11 MB). The SDK's `mcp.server` package
imports its high-level MCPServer, whose request-state sealing (AES-GCM keys derived with HKDF)
imports these names at import time; the app serves MCP with the low-level `Server`, which never
seals request state, so nothing calls them. A stand-in raises if it ever is, naming the cause.
Any other `cryptography` name stays missing (ModuleNotFoundError), as optional users expect.
"""
import importlib.util
import sys
import types

MARKER = "__kiraos_stand_in__"


class _LeftOut:
    """A class of the cryptography package that this build does not carry."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError(f"cryptography.{type(self).__qualname__} is not part of this build "
                           "(the frozen app leaves the cryptography package out)")


class InvalidTag(Exception):
    """cryptography.exceptions.InvalidTag, which nothing here can raise."""


def _class(name: str) -> type:
    return type(name, (_LeftOut,), {"__module__": "cryptography"})


def _missing(package: str):
    """A stand-in package's __getattr__: `from cryptography import x509` fails the way an absent
    package does (ModuleNotFoundError, which optional users such as PyJWT catch)."""
    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise ModuleNotFoundError(f"No module named '{package}.{name}'", name=f"{package}.{name}")
    return __getattr__


def install(force: bool = False) -> bool:
    """Register the stand-in modules unless the real package is importable (or `force`)."""
    if "cryptography" in sys.modules or (not force and importlib.util.find_spec("cryptography") is not None):
        return False
    contents = {
        "cryptography": {MARKER: True},
        "cryptography.exceptions": {"InvalidTag": InvalidTag},
        "cryptography.hazmat": {},
        "cryptography.hazmat.primitives": {},
        "cryptography.hazmat.primitives.ciphers": {},
        "cryptography.hazmat.primitives.ciphers.aead": {"AESGCM": _class("AESGCM")},
        "cryptography.hazmat.primitives.hashes": {"SHA256": _class("SHA256")},
        "cryptography.hazmat.primitives.kdf": {},
        "cryptography.hazmat.primitives.kdf.hkdf": {"HKDF": _class("HKDF")},
    }
    for name, attributes in contents.items():
        module = types.ModuleType(name, "Stand-in: the frozen app leaves the cryptography package out.")
        module.__path__ = []  # a package with nothing else in it: other submodules are not found
        module.__dict__.update(attributes)
        module.__getattr__ = _missing(name)
        sys.modules[name] = module
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, module)
    return True


install()
