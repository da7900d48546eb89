"""pbem's documentation; installed as the package ``pbem.docs`` (see pbem/resources.py), so that a message naming
a page (``docs/cli.md``) names a file on the machine, of the version that prints it."""
