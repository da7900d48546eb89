"""The largest numbers pbem accepts, fixed by the database's columns and by what a game can use.

Apart from the services so that the command line can check its options against them without loading them.
"""

MAX_GAME_ID = 2**31 - 1  # the largest number an INTEGER column holds on every database; no game has a larger one
MIN_SEED, MAX_SEED = -(2**63), 2**63 - 1  # what the games' BIGINT seed column holds; a new game's seed is >= 0
MAX_DEADLINE = 365 * 86400  # seconds: the longest deadline for a decision or a bid
