"""The worker's pass: the mailbox read (mail_in), robots and deadlines played (timekeeper), the outbox sent, the
archive kept. May import every package of the services, pbem.archive and the layers below; nothing imports it but cli and demo."""
