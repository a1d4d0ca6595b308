"""Rock'em Sock'em Robots Dice Game (2 players, simultaneous, hidden keeps) as PettingZoo environments.

```python
from parlour_envs import rockem_sockem_v0
env = rockem_sockem_v0.env(mode="rounds")            # AEC: one seat at a time
par = rockem_sockem_v0.parallel_env(mode="realtime")  # parallel: both seats each step
```
How each `mode` maps to AEC and to parallel steps, the tokens and the observation layout:
parlour_envs/games/rockem_sockem.py and docs/reference/environments.md.
"""

from __future__ import annotations

from typing import Any, ClassVar, cast

from pettingzoo import AECEnv

from engine.protocol import Action, GameState
from engine.rockem_sockem import RockemSockemState
from parlour_envs.aec import ObsDict, ParlourEnv, make_env
from parlour_envs.games.rockem_sockem import RockemSockemEncoding, realtime_order
from parlour_envs.parallel import ParlourParallelEnv


class raw_env(ParlourEnv):
    """Rock'em Sock'em without PettingZoo's checking wrappers."""

    encoding_type = RockemSockemEncoding
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "name": "rockem_sockem_v0",
        "is_parallelizable": True,
    }


class raw_parallel_env(ParlourParallelEnv):
    """Rock'em Sock'em with both seats stepping at once."""

    encoding_type = RockemSockemEncoding
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "name": "rockem_sockem_v0",
        "is_parallelizable": True,
    }

    def order(self, state: GameState, chosen: list[tuple[int, int, Action]]) -> list[tuple[int, int, Action]]:
        """Realtime rolls: the flipper's opponent's first (it rolls first in the AEC env too); else seat order."""
        if len(chosen) < 2 or not cast(RockemSockemEncoding, self.encoding).realtime:
            return chosen
        first = realtime_order(cast(RockemSockemState, state))[0]
        return sorted(chosen, key=lambda entry: entry[0] != first)


def env(**kwargs: Any) -> AECEnv[str, ObsDict, int]:
    """Rock'em Sock'em wrapped as PettingZoo's classic environments are: `render_mode`, `max_actions` and the
    game's option `mode` ("rounds" or "realtime") as keyword arguments."""
    return make_env(raw_env, **kwargs)


def parallel_env(**kwargs: Any) -> ParlourParallelEnv:
    """Rock'em Sock'em as a parallel environment, both seats choosing each step; the same keyword arguments."""
    return raw_parallel_env(**kwargs)
