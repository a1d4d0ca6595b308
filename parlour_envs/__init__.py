"""The five Parlour games as PettingZoo environments, for AI research.

Each game has a versioned module, as PettingZoo's classic environments do:

```python
from parlour_envs import icecream_v0
env = icecream_v0.env()
```

`ENVIRONMENTS` names them by game id. The bare `pip install` of Parlour installs these with the engine and the
AI and nothing of the server; docs/reference/environments.md describes every space.
"""

from __future__ import annotations

import importlib
from types import ModuleType

ENVIRONMENTS: dict[str, str] = {
    "icecream": "icecream_v0",
    "rockem_sockem": "rockem_sockem_v0",
    "freeze_factory": "freeze_factory_v0",
    "robots_love_ice_cream": "robots_love_ice_cream_v0",
    "sundae_split": "sundae_split_v0",
}
"""Each game id's environment module in this package."""


def environment(game_id: str) -> ModuleType:
    """The environment module of a game (`env()`, `raw_env`, and `parallel_env()` where seats act at once)."""
    if game_id not in ENVIRONMENTS:
        raise ValueError(f"no environment for {game_id!r}; games: {', '.join(ENVIRONMENTS)}")
    return importlib.import_module(f"parlour_envs.{ENVIRONMENTS[game_id]}")
