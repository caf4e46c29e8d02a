"""The terminal client's pieces: typed move commands and rich rendering.

``commands`` turns what a person types (``d jc>8c``) into engine actions and
back; ``render`` draws a seat's view, the help screen and the end screen;
``narrate`` describes each move as it happens.  The game loop itself is
``kozyr.cli.play``.
"""
