import pytest

from tableref.referee.cards import (
    Card,
    check_copies,
    format_cards,
    full_pack,
    packs,
    parse_card,
    parse_cards,
)
from tableref.referee.errors import CardError


@pytest.mark.parametrize(
    "text,expected",
    [("10H", "10H"), ("TH", "10H"), ("th", "10H"), ("AS", "AS"), ("Q♦", "QD"), ("K♣", "KC"), ("2♥", "2H"), ("J♠", "JS"), ("1C", "AC")],
)
def test_parse_canonical(text, expected):
    assert str(parse_card(text)) == expected


@pytest.mark.parametrize(
    "text,expected",
    [("A\u2660\ufe0f", "AS"), ("10\u2660\ufe0f", "10S"), ("Q\u2666\ufe0f", "QD"), ("2\u2665\ufe0f", "2H"),
     ("K\u2663\ufe0f", "KC"), ("\u2663\ufe0fJ", "JC"), ("\u2663J", "JC"), ("\u2665\ufe0f10", "10H"), ("\u2660Q", "QS")],
)
def test_parse_emoji_suits_before_or_after_the_rank(text, expected):
    """The suit as a phone types it (the symbol and U+FE0F), or a symbol before the rank as the game texts write it."""
    assert str(parse_card(text)) == expected


@pytest.mark.parametrize("bad", ["", "X", "11H", "10X", "ZZ", 5, None, "AHS", "\u2660\ufe0f", "A\ufe0fS", "SA",
                                 "\u2663\ufe0f10\u2660"])
def test_parse_rejects(bad):
    with pytest.raises(CardError):
        parse_card(bad)


def test_error_names_field():
    with pytest.raises(CardError) as info:
        parse_cards(["AS", "1X"], "cards")
    assert info.value.field == "cards[1]"
    assert "1X" in info.value.message


def test_packs():
    assert len(full_pack()) == 52 and len(set(full_pack())) == 52
    assert len(packs(3)) == 156


def test_copies():
    check_copies([Card(1, "S")] * 3, 3)
    with pytest.raises(CardError):
        check_copies([Card(1, "S")] * 4, 3)
    with pytest.raises(CardError):
        check_copies(parse_cards(["AS", "AS"]), 1)


def test_properties():
    c = parse_card("AH")
    assert c.is_red and c.color == "red" and c.high_rank == 14
    assert format_cards(parse_cards("10H, AS")) == ["10H", "AS"]
