"""The words a game's and an outbox mail's status column hold.

Apart from the models so that the command line can name them in its help without loading the database layer.
"""


class GameStatus:
    ACTIVE = "active"
    PAUSED = "paused"
    FINISHED = "finished"
    ABORTED = "aborted"
    ALL = (ACTIVE, PAUSED, FINISHED, ABORTED)


class OutboxStatus:
    QUEUED = "queued"
    SENDING = "sending"
    SENT = "sent"
    FAILED = "failed"
    ALL = (QUEUED, SENDING, SENT, FAILED)
