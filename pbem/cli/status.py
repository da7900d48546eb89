"""`pbem status`: is the worker alive and keeping up? Read from the database alone (services.operations.status)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING

import typer

from .context import app_context, fail, out, say_error
from .tables import Column, people_table, wide_option

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from ..services.operations.status import Status
    from .context import AppContext


def status(
    ctx: typer.Context,
    max_backlog: str = typer.Option("15m", "--max-backlog", help="Unhealthy when the oldest mail waiting in the mailbox (as the worker last saw it), or a passed deadline the worker has not dealt with, is older than this (15m, 1h, ...)."),
    max_outbox_wait: str = typer.Option("15m", "--max-outbox-wait", help="Unhealthy when the oldest mail waiting in the outbox was queued longer ago than this."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document with every figure, `healthy` and `problems`."),
    output: str = typer.Option("table", "--format", metavar="FORMAT", help="table (the default), json (as --json) or prometheus: the same figures in Prometheus' text format, for node_exporter's textfile collector (the exit code stays 0 or 1)."),
    wide: bool = wide_option(),
    forget: str = typer.Option("", "--forget", metavar="TOKEN", help="Instead: remove the heartbeat of the worker with this token (shown in the table), one that is not running and will not come back, so that it no longer makes the status unhealthy."),
) -> None:
    """Say whether a worker is running and keeping up (exit code 0) or not (1, with why).

    What it looks at: each worker's heartbeat (host, pid, long-running or --once, its state), the mailbox as a
    worker last saw it, the outbox, the deadlines passed and the schema; one line for each problem. A
    long-running worker that stopped beating without being stopped is a problem, whatever --once runs do
    meanwhile, until it is started again on its host or forgotten (--forget). The table of workers gives
    each one's host, pid, kind, state, last beat and token; --wide adds how often it beats and when it started.

    It reads the database only and never connects to the mail servers, so monitoring, a systemd timer or
    Docker's HEALTHCHECK may run it as often as they like.

    Example:

        pbem status

        pbem status --json

        pbem status --format prometheus > /var/lib/prometheus/node-exporter/pbem.prom.new; mv /var/lib/prometheus/node-exporter/pbem.prom.new /var/lib/prometheus/node-exporter/pbem.prom

        pbem status --wide

        pbem status --max-backlog 30m --max-outbox-wait 1h

        pbem status --forget 3f2a9c01b7de
    """
    from datetime import timedelta

    from sqlalchemy.exc import DBAPIError

    from ..services.operations.status import StatusService
    from ..timespans import TimingError, parse_duration

    try:
        backlog = timedelta(seconds=parse_duration(max_backlog, "--max-backlog"))
        outbox_wait = timedelta(seconds=parse_duration(max_outbox_wait, "--max-outbox-wait"))
    except TimingError as exc:
        fail(str(exc))
    if output not in ("table", "json", "prometheus"):
        fail(f"--format must be table, json or prometheus, not {output!r}")
    as_json = as_json or output == "json"
    context = app_context(ctx)
    engine = context.engine(check_schema=False)  # a schema that is behind is one of the problems to report
    if forget:
        _forget(context, engine, forget, as_json)
        return
    try:
        found = StatusService(engine).read(max_backlog=backlog, max_outbox_wait=outbox_wait)
    except DBAPIError as exc:
        problem = context.database_failure(exc)
        if as_json:
            typer.echo(json.dumps({"healthy": False, "problems": [problem]}, indent=2))
        say_error(problem)
        raise typer.Exit(code=1)
    if output == "prometheus":
        from .status_prometheus import prometheus_text

        typer.echo(prometheus_text(found), nl=False)
    elif as_json:
        typer.echo(json.dumps(found.to_dict(), indent=2))
    else:
        _show(found, context.where, wide)
    if not found.healthy:
        raise typer.Exit(code=1)


def _forget(context: AppContext, engine: Engine, token: str, as_json: bool) -> None:
    from sqlalchemy.exc import DBAPIError

    from ..services.common.errors import ServiceError
    from ..services.operations.status import StatusService

    try:
        gone = StatusService(engine).forget(token)
    except ServiceError as exc:
        fail(exc.message)
    except DBAPIError as exc:
        fail(context.database_failure(exc))
    if as_json:
        typer.echo(json.dumps({"forgot": gone.to_dict()}, indent=2))
    else:
        out.print(f"forgot worker {gone.name}, {gone.state}: {gone.why}", highlight=False, markup=False,
                  soft_wrap=True)


def _show(found: Status, where: str, wide: bool) -> None:
    from rich.markup import escape
    from rich.table import Table

    from ..services.operations.status import ago, every
    from ..words import plural

    now = found.checked_at
    if found.healthy:
        out.print("healthy", highlight=False)
    for problem in found.problems:  # one line each, never wrapped: what monitoring and `docker inspect` show
        out.print(f"unhealthy: {problem}", highlight=False, markup=False, soft_wrap=True)

    def since(moment: datetime | None) -> str:
        return f"{ago((now - moment).total_seconds())} ago" if moment is not None else "-"

    schema = found.schema
    figures = Table(show_header=False, box=None, padding=(0, 2, 0, 0))
    figures.add_column(style="bold")
    figures.add_column(overflow="fold")  # a URL or a host longer than the line goes on, never cut
    figures.add_row("database", escape(where))
    figures.add_row("schema", escape(f"{schema.revision or 'none'}" + (" (current)" if schema.current else
                                                                       f" (pbem needs {schema.head})")))
    workers = found.workers
    if workers is None:
        figures.add_row("workers", "unknown (the schema has no heartbeats yet)")
    else:
        states = {state: sum(w.state == state for w in workers) for state in ("running", "finished", "silent",
                                                                                 "dead", "stopped")}
        figures.add_row("workers", ", ".join(f"{count} {state}" for state, count in states.items() if count) or "none")
    m = found.mailbox
    if m is None:
        figures.add_row("mailbox", "not read by any worker yet" if workers is not None else "unknown")
    else:
        oldest = f", the oldest arrived {since(m.oldest)}" if m.waiting and m.oldest else ""
        state = (f"pass running, {plural(m.found, 'mail')} found" if m.ended_at is None
                 else f"{plural(m.waiting, 'mail')} waiting{oldest} ({m.found} at the start of the pass)")
        figures.add_row("mailbox", escape(f"read {since(m.read_at)} by {m.worker}: {state}"))
    o = found.outbox
    if o is None:
        figures.add_row("outbox", "unknown")
    else:
        oldest = f", the oldest (mail {o.oldest_id}) waiting {ago((now - o.oldest_at).total_seconds())}" \
            if o.oldest_at is not None else ""
        figures.add_row("outbox", f"{o.queued} queued{oldest}, {o.failed} failed")
    d = found.deadlines
    if d is None:
        figures.add_row("deadlines", "unknown")
    elif not d.past:
        figures.add_row("deadlines", "none passed")
    else:
        figures.add_row("deadlines", f"{plural(d.past, 'decision')} past the deadline (the oldest: game "
                        f"{d.oldest_game}, due {since(d.oldest_due)}), {d.unhandled} not yet dealt with by the worker")
    out.print(figures)
    if workers:
        rows = []
        for w in workers:
            state = w.state if w.state == "running" else f"{w.state}: {w.why}"
            if w.trouble and w.state != "stopped":  # (a stopped worker's why says it)
                state += f"; {w.trouble}"
            if w.problem:  # the one to look at, among many rows
                state = f"{state} (a problem)"
            rows.append((w.host, str(w.pid), w.kind, state, since(w.beat_at), every(w.interval),
                         w.started_at.strftime("%Y-%m-%d %H:%M UTC"), w.token))
        out.print(people_table("workers", (
            Column("host"), Column("pid", whole=True, justify="right"), Column("kind", whole=True), Column("state"),
            Column("last beat"), Column("every", only="wide"), Column("started", only="wide"),
            Column("token", whole=True)), rows, wide=wide))  # the token whole: `pbem status --forget TOKEN`
