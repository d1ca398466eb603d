"""The Agent."""

from core.agent.agent import Agent

__all__ = ["Agent"]
