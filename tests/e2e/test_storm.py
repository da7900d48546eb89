"""The storm: moves keep coming by mail while two workers share the mailbox, workers are killed with SIGKILL
at random moments and (on PostgreSQL) every database connection of the workers is cut. Nothing is lost,
nothing applies twice, nothing is set aside, a stranger's signup mails beside the moves are each stored with
their request or not at all, and at most one mail per kill is delivered twice (the window
documented in ``pbem.adapters.outbox_sender``). ``bench/storm.py`` runs a longer one and prints the figures.
"""

from __future__ import annotations

import pytest

from pbem.services.mail_in.signup_mail import MAX_ANSWER
from pbem.services.table.signup import MAX_WAITING
from pbem_testing.storm import Storm

MOVES = 30


@pytest.mark.slow
def test_a_storm_loses_and_doubles_no_move(tmp_path, database_url, dovecot, smtp_server, mailboxes) -> None:
    postgres = database_url.startswith("postgresql")
    storm = Storm(database_url, dovecot, smtp_server, tmp_path, seed=7, workers=2)
    report = storm.play(MOVES, kill_chance=0.25, cut_chance=0.2 if postgres else 0.0)
    logs = "\n".join(p.read_text(errors="replace")[-3000:] for p in sorted(tmp_path.glob("worker-*.log")))
    print(report.line())
    assert report.notes == [], (report.notes, logs)
    assert report.moves == MOVES and report.kills >= 3 and (report.cuts >= 2 or not postgres)
    assert report.lost == 0 and report.applied_twice == 0 and report.applied == MOVES, report.line()
    assert report.set_aside == 0 and report.unbidden_exits == 0, (report.line(), logs)
    assert report.signups >= 3 and report.signup_unmatched == 0, report.line()  # issue 36: signup mails too
    # Issue 42: whatever the stranger sent, pbem mailed it a day's answer and the codes that may wait, all short.
    assert report.stranger_mails <= 1 + MAX_WAITING and report.stranger_largest <= MAX_ANSWER + 1500, report.line()
    assert report.doubles <= report.kills, report.line()  # at most one per kill
    assert report.delivered == report.sent + report.doubles, report.line()  # every mail sent went out
