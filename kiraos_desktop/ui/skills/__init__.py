"""The Skills page: a workbench to author skills with a live preview of what the LLM receives."""
from .page import SkillsPage

__all__ = ["SkillsPage"]
