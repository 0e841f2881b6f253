"""The built-in bots: ``random``, ``greedy``, ``heuristic`` and ``ismcts`` (see
:mod:`tienlen.players.registry` for making them by name)."""
