"""The ``kozyr`` command line: replay (referee), bench, and the other tools."""
