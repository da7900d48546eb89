"""Use cases that the CLI (and later the mail worker) call; one function per job."""
