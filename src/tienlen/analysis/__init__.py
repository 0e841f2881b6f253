"""Game analysis on top of the core and the bots: the values of a seat's choices from its own
information (:mod:`.decisions`), the review of whole games (:mod:`.review`) and puzzles
(:mod:`.puzzles`); the open-hands solver they ask is the core's (:mod:`tienlen.solver`)."""
