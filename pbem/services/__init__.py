"""The use cases, grouped by the path of the work, each package a layer (pyproject.toml, [tool.importlinter]):
worker, then mail_in, then table | offline, mail_out, operations, common; a package imports only those below it."""
