"""The HTTP and WebSocket routes, one router per resource: the lobby and tables
(:mod:`.tables`), players (:mod:`.players`), finished games (:mod:`.games`), the sockets
(:mod:`.sockets`), operations (:mod:`.operations`: health, readiness, metrics), the browser's
pages (:mod:`.pages`) and score pads (:mod:`.pads`)."""
