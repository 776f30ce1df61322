"""Pure rules for Desmoche and Marriage: cards, melds, games, scoring, settlement.

No I/O, no vision, no web. Everything else in tableref depends on this package;
it depends on nothing else of ours.
"""
