"""Test helper: the oracle's moves on a scenario, through the Gymnasium env (so a two-role
world's partner plays its part as it will in the tested adapter). Tests only: no adapter
hands these to an agent."""

from __future__ import annotations

import escapade


def oracle_moves(source: str, index: int, seed: int, kind: str = "oracle", **kwargs) -> list:
    env = escapade.EscapadeEnv(source, scenario=index, **kwargs)
    env.reset(seed=seed)
    agent = escapade.Agent(env.env, kind, 0)
    agent.reset(env.env, 0)
    moves = []
    while True:
        action = agent.act(env.env)
        moves.append(action)
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            assert info["outcome"]["success"], info["outcome"]
            return moves
