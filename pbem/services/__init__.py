"""The use cases, grouped by the path of the work, each package a layer (pyproject.toml, [tool.importlinter]):
mail_in | clock, then table | offline, mail_out, operations, common; a package imports only those below it."""
