"""The simulator: rule-following bots play a hand, a renderer films the table.

* :mod:`tableref.simulate.bots` -- Desmoche and Marriage bots that follow the rules
  using the referee; a hand becomes a *script* (the table after every visible
  change) plus the ground truth (winner, nets, Marriage maal).
* :mod:`tableref.simulate.render` -- draws the script as a top-down video of a
  table (deck artwork and backgrounds of the training-data generator, hands and
  arms reaching over the table, a slightly tilted camera).

``tableref simulate desmoche|marriage --seed N --out DIR`` writes
``DIR/video.mp4`` and ``DIR/truth.json``.
"""
