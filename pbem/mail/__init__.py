"""Reading players' mails: pure functions, no network and no database.

``pbem.mail.text`` finds the lines a player wrote in a reply (quotes,
signatures and our own board pasted back are left out).
"""
