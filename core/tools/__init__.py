"""Tools: plain functions, ``@tool``-decorated functions and toolkits."""

from core.tools.decorator import tool
from core.tools.function import INJECTED_PARAMS, Function, FunctionCall
from core.tools.toolkit import Toolkit

__all__ = ["INJECTED_PARAMS", "Function", "FunctionCall", "Toolkit", "tool"]
