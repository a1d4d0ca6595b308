"""Sundae Split (2 to 5 players, hidden cards, chance) as a PettingZoo AEC environment.

```python
from parlour_envs import sundae_split_v0
env = sundae_split_v0.env(players=3)
```
The Splitter's split is one token per drawn card (its kind, pile and side), a chooser's pile one token; every game
lasts exactly its rounds, so truncation never comes first. Spaces, observation layout and rewards:
docs/reference/environments.md.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pettingzoo import AECEnv

from parlour_envs.aec import ObsDict, ParlourEnv, make_env
from parlour_envs.games.sundae_split import SundaeSplitEncoding


class raw_env(ParlourEnv):
    """Sundae Split without PettingZoo's checking wrappers."""

    encoding_type = SundaeSplitEncoding
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "name": "sundae_split_v0",
        "is_parallelizable": False,
    }


def env(**kwargs: Any) -> AECEnv[str, ObsDict, int]:
    """Sundae Split wrapped as PettingZoo's classic environments are: `players` (2 to 5), `render_mode` and
    `max_actions` as keyword arguments (the game has no options)."""
    return make_env(raw_env, **kwargs)
