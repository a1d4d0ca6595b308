"""The settings reference, rendered from the settings registry (`model.settings.SETTINGS`) when the guide is built."""

from __future__ import annotations

from reference_text import cell, code, import_project, table


def settings() -> str:
    """Every setting, a table per section in the order the registry declares them: name, default, meaning."""
    import_project()
    from model.settings import SETTINGS

    sections: dict[str, list[tuple[str, str, str]]] = {}
    for setting in SETTINGS:
        default = code(setting.default) if setting.default else "unset"
        row = (code(setting.name), default, cell(setting.description))
        sections.setdefault(setting.section, []).append(row)
    parts = []
    for section, rows in sections.items():
        parts += [f"## {section}", table(("variable", "default", "meaning"), rows)]
    return "\n\n".join(parts) + "\n"
