"""The clock's turn in each pass of the worker: reminders, timeouts, digests, the moderator told of late players.
May import table, mail_out, operations, common and the layers below; not mail_in nor the archive (the sums of time are in common)."""
