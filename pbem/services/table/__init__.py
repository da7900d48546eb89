"""The games at the table: the game service (every change), reading and listing games, export and import,
absences, robot seats, talk. May import mail_out, operations, common and the layers below; not mail_in, clock, offline."""
