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
    # Not sent: a later mail to the same reader took its place while it waited, telling everything it told (a
    # game mail: services.mail_out.mail_folding; a mail to the moderator: a digest, services.mail_out.moderator_mail).
    FOLDED = "folded"
    # A mail to the moderator waiting for room in the moderator's hourly budget: let go as it is, or told in a
    # digest (then 'folded'; services.mail_out.moderator_mail).
    HELD = "held"
    ALL = (QUEUED, SENDING, SENT, FAILED, FOLDED, HELD)
