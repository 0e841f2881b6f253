"""Game analysis on top of the core and the bots: the open-hands solver
(:mod:`.solver`), the values of a seat's choices from its own information
(:mod:`.decisions`) and the review of whole games (:mod:`.review`)."""
