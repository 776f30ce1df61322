"""The server-rendered pages: live table, scoreboard, setup, Marriage count."""
from __future__ import annotations

from urllib.parse import urlparse

from flask import Blueprint, current_app, redirect, render_template, request

from tableref.live.setup import DEFAULT_NAMES
from tableref.web.auth import csrf_token, is_host
from tableref.web.i18n import LANGUAGES, pick_language, strings, translator
from tableref.web.setup_form import SEAT_RANGE, all_switches

pages = Blueprint("pages", __name__, template_folder="templates", static_folder="static",
                  static_url_path="/static")


def render(template: str, **kw):
    ctx = current_app.extensions["tableref"]
    lang = pick_language()
    setup = ctx.setup()
    t = translator(lang)

    def choice(value) -> str:
        """A switch's value as players read it: on/off, a named choice, or the number."""
        if isinstance(value, bool):
            return t("on" if value else "off")
        return t("choice_" + value) if isinstance(value, str) and "choice_" + value in t.keys else str(value)

    return render_template(template, t=t, choice=choice, lang=lang, languages=LANGUAGES, strings=strings(lang),
                           csrf=csrf_token(), host=is_host(), setup=setup, game=setup.get("game", "desmoche"),
                           page=template.rsplit(".", 1)[0], ledger=ctx.service.ledger_view(), **kw)


@pages.get("/")
def live():
    return render("live.html")


@pages.get("/scoreboard")
def scoreboard():
    return render("scoreboard.html")


@pages.get("/setup")
def setup():
    return render("setup.html", switches=all_switches(), seat_range=SEAT_RANGE, default_names=list(DEFAULT_NAMES))


@pages.get("/count")
def count():
    return render("count.html")


@pages.get("/lang/<code>")
def set_language(code: str):
    # Go back to the page the player was on, but only to a page of this site.
    ref = urlparse(request.referrer or "/")
    same_site = not ref.netloc or ref.netloc == request.host
    resp = redirect((ref.path or "/") if same_site else "/")
    if code in LANGUAGES:
        resp.set_cookie("lang", code, max_age=365 * 24 * 3600, samesite="Lax")
    return resp
