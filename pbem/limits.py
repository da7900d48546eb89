"""The largest numbers pbem accepts, fixed by the database's columns and by what a game can use.

Apart from the services so that the command line can check its options against them without loading them.
"""

MAX_GAME_ID = 2**31 - 1  # the largest number an INTEGER column holds on every database; no game has a larger one
MIN_SEED, MAX_SEED = -(2**63), 2**63 - 1  # what the games' BIGINT seed column holds; a new game's seed is >= 0
MAX_DEADLINE = 365 * 86400  # seconds: the longest deadline for a decision or a bid
# A mail of choices (issue 44: the commands of one group of a decision as links, services.mail_out.taps) lists at
# most this many: 100 commands of 60 characters (the engines' longest, a bid of 15 cards, has 40) make it 43.2 KB
# as sent (tests/unit/test_choices_mail_size.py).
CHOICES_MOST = 100
CHOICES_AN_HOUR = 10  # mails of choices one address gets an hour; a 'choices' line beyond is answered in a line
