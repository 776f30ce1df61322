"""Interface languages: English, Spanish and Nepali. The player picks (cookie ``lang``).

Strings live in ``web/i18n/<code>.json``; a key missing in a language falls back
to English, and a key missing everywhere shows the key itself (tests catch that).
Verdict reasons come from the referee in English and are shown as they are.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from flask import request

FOLDER = Path(__file__).parent / "i18n"
LANGUAGES = {"en": "English", "es": "Español", "ne": "नेपाली"}
DEFAULT = "en"


@lru_cache(maxsize=None)
def strings(code: str) -> dict[str, str]:
    path = FOLDER / f"{code}.json"
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    if code != DEFAULT:
        return {**strings(DEFAULT), **data}
    return data


def pick_language() -> str:
    """The cookie's language, else the browser's best supported one, else English."""
    code = request.cookies.get("lang")
    if code in LANGUAGES:
        return code
    best = request.accept_languages.best_match(list(LANGUAGES))
    return best or DEFAULT


def translator(code: str):
    table = strings(code)

    def t(key: str, **kw) -> str:
        text = table.get(key, key)
        return text.format(**kw) if kw else text

    return t
