"""Mail going out: who is mailed what (notices, delivery, the chronicle, help), the outbox, its sender process and
relay, the moderator's mail. May import operations, common and the layers below; never table, mail_in, clock or offline."""
