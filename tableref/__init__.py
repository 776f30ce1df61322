"""tableref: referee and scorekeeper for real card games on a real table.

This package holds the application glue: the command line, the table session
(vision observations -> referee events) and the ledger. The rules live in
``referee``, recognition in ``vision``, the web app in ``web``.
"""
__version__ = "0.1.0"
