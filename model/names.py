"""Display names (seats, tournament entrants, bots): the one check every name given to the server passes.

Names are shown to other people in seat lists, standings and bot profiles, so a name is printable
text: no control, format (bidi overrides and isolates, zero-width characters) or line and
paragraph separator characters, no space but U+0020 and none at either end, and no `<` or `>`, so
a name never forms an HTML tag (clients still escape names as text: `&` and quotes are allowed).
"""

from __future__ import annotations

import unicodedata

MARKUP = frozenset("<>")
"""Characters a name may not hold: with them a name could be an HTML tag."""
MAX_NAME = 64
"""The longest name, in characters, unless a field says otherwise."""


def name_problem(text: str, max_length: int = MAX_NAME) -> str | None:
    """Why `text` is not a name, or None when it is one."""
    if not 1 <= len(text) <= max_length:
        return f"a name has 1 to {max_length} characters"
    if text != text.strip():
        return "a name does not start or end with a space"
    # str.isprintable is false exactly for Unicode's "Other" (Cc, Cf, Cs, Co, Cn) and "Separator"
    # (Zs, Zl, Zp) categories, the ASCII space excepted: controls, bidi marks, zero-width characters.
    unprintable = next((char for char in text if not char.isprintable()), None)
    if unprintable is not None:
        kind = unicodedata.category(unprintable)
        return f"a name has no control, format or separator characters: U+{ord(unprintable):04X} ({kind})"
    if MARKUP & set(text):
        return "a name has no < or >"
    return None


def fold_name(text: str) -> str:
    """The form names are compared in: compatibility-normalized and case-folded (`Rando`, fullwidth too: `rando`)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
