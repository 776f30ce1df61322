"""The house's rules: data flows one way, nothing imports in a circle, each game is declared once.

Reads the source (ast) of every module of the installed package ``tableref``; imports
inside functions count too (a lazy import is still a dependency).
"""
import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the repository's folders and the package names they are installed as (pyproject.toml package-dir)
FOLDERS = {"tableref": "tableref", "referee": "tableref.referee", "vision": "tableref.vision",
           "web": "tableref.web", "models": "tableref.models", "datasets": "tableref.datasets"}


def _modules() -> dict[str, Path]:
    out = {}
    for folder, package in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            rel = path.relative_to(ROOT / folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            out[".".join([package, *parts])] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The modules of ours that ``name`` imports (resolved to modules that exist)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = name.split(".")[: -node.level] if not path.name == "__init__.py" else name.split(".")[
                    : len(name.split(".")) - node.level + 1]
                base = ".".join(pkg + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module" and node.args \
                and isinstance(node.args[0], ast.Constant):
            targets = [node.args[0].value]
        else:
            continue
        for t in targets:
            while t and t not in MODULES:
                t = t.rpartition(".")[0]
            if t and t != name and t.startswith("tableref"):
                found.add(t)
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _room(path: Path) -> str:
    """The room a file is in: ``referee``, ``vision``, ``web``... or ``tableref/live``, ``tableref/ledger``..."""
    parts = path.relative_to(ROOT).parts
    return "/".join(parts[:2]) if parts[0] == "tableref" and len(parts) > 2 else parts[0]


def test_the_graph_is_read():
    assert "tableref.live.session" in GRAPH and "tableref.vision.tracking" in GRAPH["tableref.live.session"]
    assert "tableref.table.service" in GRAPH["tableref.web.app"]


def test_no_import_circle():
    # Tarjan's strongly connected components over every module of ours
    index, low, stack, on, cycles, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in GRAPH.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    import sys

    sys.setrecursionlimit(10000)
    for v in GRAPH:
        if v not in index:
            visit(v)
    assert not cycles, f"modules that import each other in a circle: {cycles}"


def _offenders(room: str, forbidden) -> list[str]:
    return [f"{m} imports {t}" for m, deps in GRAPH.items() if m == room or m.startswith(room + ".")
            for t in sorted(deps) if any(t == f or t.startswith(f + ".") for f in forbidden)]


def test_referee_imports_nothing_of_ours():
    bad = [f"{m} imports {t}" for m, deps in GRAPH.items() if m.startswith("tableref.referee")
           for t in deps if not t.startswith("tableref.referee")]
    assert not bad, bad


def test_vision_knows_no_game_no_command_line_no_web():
    assert not _offenders("tableref.vision", ["tableref.live", "tableref.web", "tableref.cli", "tableref.ledger",
                                              "tableref.referee", "tableref.table", "tableref.games"])


@pytest.mark.parametrize("room", ["tableref.live", "tableref.ledger", "tableref.referee", "tableref.vision",
                                  "tableref.table", "tableref.games"])
def test_nothing_below_imports_the_web(room):
    assert not _offenders(room, ["tableref.web", "tableref.cli"])


def test_the_live_session_knows_neither_ledger_nor_service():
    assert not _offenders("tableref.live", ["tableref.ledger", "tableref.table"])


def test_the_ledger_does_not_run_back_up_to_the_live_table():
    assert not _offenders("tableref.ledger", ["tableref.live", "tableref.table", "tableref.vision"])


# ------------------------------------------------------------------------------ games declared once
def _source_files(extra=()):
    for folder in (*FOLDERS, *extra):
        for path in (ROOT / folder).rglob("*.py"):
            yield path, path.read_text(encoding="utf-8")


def test_no_second_list_of_games():
    games_py = ROOT / "tableref" / "games.py"
    lists = re.compile(r"""^\s*(GAMES|SEAT_RANGE)\s*=\s*[\(\[{]\s*["'](desmoche|marriage)""", re.M)
    pairs = re.compile(r"""["']desmoche["']\s*,\s*["']marriage["']|["']marriage["']\s*,\s*["']desmoche["']""")
    bad = [str(p.relative_to(ROOT)) for p, src in _source_files(extra=("scripts",))
           if p != games_py and (lists.search(src) or pairs.search(src))]
    assert not bad, f"games listed outside tableref/games.py: {bad}"


def test_the_session_has_no_per_game_branches():
    for name in ("session.py", "events.py", "state.py", "hand.py"):
        src = (ROOT / "tableref" / "live" / name).read_text(encoding="utf-8")
        assert not re.search(r"""game\s*[!=]=\s*["']""", src), name
        assert "getattr(self.hand" not in src, name
    src = (ROOT / "tableref" / "table" / "service.py").read_text(encoding="utf-8")
    assert not re.search(r"""game\s*[!=]=\s*["']""", src)


def test_every_game_has_a_live_hand_that_keeps_the_protocol():
    from tableref.games import GAMES
    from tableref.live.hand import LiveHand, new_hand

    for game in GAMES.values():
        lo, hi = game.seats
        assert 2 <= lo <= hi and game.default_seats in range(lo, hi + 1)
        assert game.seat_error(lo) is None and game.seat_error(hi + 1)
        game.rules({})                                     # the defaults are valid house rules
        players = [f"P{i}" for i in range(game.default_seats)]
        hand = new_hand(game, players, rules={}, stake=1, pot_carried=0, hand_no=7, auto_finish=True)
        assert isinstance(hand, LiveHand) and hand.game == game.name and hand.hand_no == 7
        assert isinstance(hand.table_view(), dict) and len(hand.seat_views()) == len(players)


# ------------------------------------------------------------------------------ names and events
def test_no_two_classes_share_a_name_across_packages():
    """A class name says which class it is: no two modules define one (referee.desmoche and
    referee.marriage included)."""
    where: dict[str, set[str]] = {}
    for path, src in _source_files():
        for node in ast.parse(src).body:
            if isinstance(node, ast.ClassDef):
                where.setdefault(node.name, set()).add(str(path))
    shared = {name: sorted(rooms) for name, rooms in where.items() if len(rooms) > 1}
    assert not shared, shared


def test_events_are_built_in_one_place():
    """Every event of the live session is made by make_event: no dict literal with a "type" key
    and a "text" key elsewhere in tableref/live/."""
    bad = []
    for path in (ROOT / "tableref" / "live").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        builder = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "make_event"]
        inside = {id(n) for b in builder for n in ast.walk(b)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict) and id(node) not in inside:
                keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
                if {"type", "text"} <= keys:
                    bad.append(f"{path.name}:{node.lineno}")
    assert not bad, f"events built by hand: {bad}"
