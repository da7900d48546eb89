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
    # Not sent: a later mail to the same reader about the same game took its place while it waited, telling
    # everything it told (services.mail_folding).
    FOLDED = "folded"
    ALL = (QUEUED, SENDING, SENT, FAILED, FOLDED)
