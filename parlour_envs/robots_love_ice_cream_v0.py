"""Robots Love Ice Cream (1 to 4 players, co-operative, imperfect information) as a PettingZoo AEC environment.

```python
from parlour_envs import robots_love_ice_cream_v0
env = robots_love_ice_cream_v0.env(players=3, attack_twice=True)
```
An attack, a purchase, an equip or a keep is a few tokens of the same agent: its type, then each field
(parlour_envs/games/robots_love_ice_cream.py). Every seat gets the team's shared reward: +1 when the group saves 10
Ice Cream tokens, -1 otherwise. Spaces, observation layout and rewards: docs/reference/environments.md.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pettingzoo import AECEnv

from parlour_envs.aec import ObsDict, ParlourEnv, make_env
from parlour_envs.games.robots_love_ice_cream import RobotsLoveIceCreamEncoding


class raw_env(ParlourEnv):
    """Robots Love Ice Cream without PettingZoo's checking wrappers."""

    encoding_type = RobotsLoveIceCreamEncoding
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "name": "robots_love_ice_cream_v0",
        "is_parallelizable": False,
    }


def env(**kwargs: Any) -> AECEnv[str, ObsDict, int]:
    """Robots Love Ice Cream wrapped as PettingZoo's classic environments are: `players` (1 to 4), `render_mode`,
    `max_actions` and the game's options as keyword arguments: `solo_planets` ("2" or "3"), the Challenge Variants
    `harder_robots`, `weaponized_sprinkletonium`, `all_red_spinstons`, `ice_cream_social`, `attack_twice`,
    `boost_limit`, and `open_hands`, `stop_when_lost`."""
    return make_env(raw_env, **kwargs)
