"""`pbem status --format prometheus`: the figures of `status --json` in Prometheus' text format, for a scrape by
node_exporter's textfile collector (deploy/README.md) or any agent that reads it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..services.operations.status import Status

STATES = ("running", "finished", "silent", "dead", "stopped")


def _label(value: Any) -> str:
    return str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def prometheus_text(found: Status) -> str:
    """Every figure as a gauge: the health, the schema, the workers by state and each one's last beat, the mailbox's
    backlog, the outbox and the deadlines. A figure that is unknown (no worker has read the mailbox yet) is left
    out rather than given as 0, so that an alert on its age does not fire on nothing."""
    figures = found.to_dict()
    lines: list[str] = []

    def gauge(name: str, help_text: str, samples: list[tuple[dict[str, Any], float | int | bool | None]]) -> None:
        known = [(labels, value) for labels, value in samples if value is not None]
        if not known:
            return
        lines.append(f"# HELP pbem_{name} {help_text}")
        lines.append(f"# TYPE pbem_{name} gauge")
        for labels, value in known:
            shown = ",".join(f'{key}="{_label(label)}"' for key, label in labels.items())
            number = float(value)
            text = str(int(number)) if number.is_integer() else repr(number)
            lines.append(f"pbem_{name}{{{shown}}} {text}" if shown else f"pbem_{name} {text}")

    gauge("healthy", "1 when pbem status finds no problem (its exit code 0), else 0", [({}, found.healthy)])
    gauge("problems", "The problems pbem status names", [({}, len(found.problems))])
    gauge("schema_current", "1 when the database's schema is the one this pbem needs", [({}, found.schema.current)])
    workers = found.workers
    if workers is not None:
        gauge("workers", "Workers by state: running, finished (a --once pass), silent, dead, stopped",
              [({"state": state}, sum(w.state == state for w in workers)) for state in STATES])
        gauge("worker_last_beat_age_seconds", "Seconds since each worker's last heartbeat",
              [({"host": w.host, "pid": w.pid, "kind": w.kind, "state": w.state, "token": w.token}, round(w.age, 1))
               for w in workers])
    mailbox = figures["mailbox"]
    if mailbox is not None:
        gauge("mailbox_waiting", "Mails in the game mailbox as a worker last saw it", [({}, mailbox["waiting"])])
        gauge("mailbox_backlog_seconds", "Age of the oldest mail waiting in the game mailbox",
              [({}, mailbox["backlog_seconds"])])
    outbox = figures["outbox"]
    if outbox is not None:
        gauge("outbox_queued", "Mails queued or being sent", [({}, outbox["queued"])])
        gauge("outbox_failed", "Mails that failed for good", [({}, outbox["failed"])])
        gauge("outbox_oldest_waiting_seconds", "Age of the mail waiting longest in the outbox",
              [({}, outbox["oldest_waiting_seconds"])])
    deadlines = figures["deadlines"]
    if deadlines is not None:
        gauge("deadlines_past", "Open decisions whose deadline has passed", [({}, deadlines["past"])])
        gauge("deadlines_unhandled", "Passed deadlines the worker has not dealt with yet",
              [({}, deadlines["unhandled"])])
    gauge("max_backlog_seconds", "The backlog pbem status allows (--max-backlog)",
          [({}, found.max_backlog.total_seconds())])
    gauge("max_outbox_wait_seconds", "The outbox wait pbem status allows (--max-outbox-wait)",
          [({}, found.max_outbox_wait.total_seconds())])
    return "\n".join(lines) + "\n"
