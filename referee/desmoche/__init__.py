"""Desmoche: the rules engine (pure, no I/O).

Modules: ``settings`` (house-rule switches), ``melds`` (runs, sets, laying order),
``autowin`` (peladilla, cuatro cuerpos, color), ``moves`` (what changed on the
table and whether it was legal), ``table`` (the table referee: snapshots of the
table in, verdicts out; the live camera session uses it), ``hand`` (a whole hand:
the table referee plus the hands, stock and turns; the bots play it),
``bonuses`` (Mico, Arriba del Palo, Color), ``side_games``, ``settle`` (stakes,
pot carry-over, nets), ``seats`` (seat order and direction of play).
"""
from tableref.referee.desmoche.settings import DesmocheSettings, desmoche_settings  # noqa: F401
from tableref.referee.desmoche.hand import DesmocheHand  # noqa: F401,E402
from tableref.referee.desmoche.melds import check_meld, check_table  # noqa: F401,E402
from tableref.referee.desmoche.settle import SideGame, settle_hand  # noqa: F401,E402
from tableref.referee.desmoche.table import TableReferee  # noqa: F401,E402
