"""pbem's Jinja2 templates; installed as the package ``pbem.templates`` (see pbem/resources.py)."""
