"""Freeze Factory (2 to 4 players, hidden cone hands, a die) as a PettingZoo AEC environment.

```python
from parlour_envs import freeze_factory_v0
env = freeze_factory_v0.env(players=3, auto_freeze=False, turn_limit=0)
```
Out-of-turn FREEZE! claims are offered in public windows (parlour_envs/games/freeze_factory.py says how).
Spaces, observation layout and rewards: docs/reference/environments.md.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pettingzoo import AECEnv

from parlour_envs.aec import ObsDict, ParlourEnv, make_env
from parlour_envs.games.freeze_factory import FreezeFactoryEncoding


class raw_env(ParlourEnv):
    """Freeze Factory without PettingZoo's checking wrappers."""

    encoding_type = FreezeFactoryEncoding
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "name": "freeze_factory_v0",
        "is_parallelizable": False,
    }


def env(**kwargs: Any) -> AECEnv[str, ObsDict, int]:
    """Freeze Factory wrapped as PettingZoo's classic environments are: `players` (2 to 4), `render_mode`,
    `max_actions` and the game's options (`auto_freeze`, `turn_limit`, `starting_hand`, `start_layout`,
    `shuffle_start`, `fulfil_any_line`) as keyword arguments."""
    return make_env(raw_env, **kwargs)
