"""Bots by name: the documented place to register one (``ruledraft.agents.register_agent``).

The registry lives in :mod:`ruledraft.play.agents`; this module keeps the name the
README documents.
"""

from ruledraft.play.agents import BotOption, agent_names, make_agent, register_agent

__all__ = ["BotOption", "agent_names", "make_agent", "register_agent"]
