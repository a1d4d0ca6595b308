"""IceCream (2 players, perfect information) as a PettingZoo AEC environment.

```python
from parlour_envs import icecream_v0
env = icecream_v0.env(first_player_flavour="yellow", turn_limit=0)
```
Spaces, observation layout and rewards: docs/reference/environments.md.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pettingzoo import AECEnv

from parlour_envs.aec import ObsDict, ParlourEnv, make_env
from parlour_envs.games.icecream import IceCreamEncoding


class raw_env(ParlourEnv):
    """IceCream without PettingZoo's checking wrappers."""

    encoding_type = IceCreamEncoding
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "icecream_v0", "is_parallelizable": False}


def env(**kwargs: Any) -> AECEnv[str, ObsDict, int]:
    """IceCream wrapped as PettingZoo's classic environments are: `players`, `render_mode`, `max_actions` and the
    game's options (`first_player_flavour`, `turn_limit`) as keyword arguments."""
    return make_env(raw_env, **kwargs)
