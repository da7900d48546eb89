"""Writes the reply corpus of this folder: replies in the shapes of public mail clients, each with its sidecar.

Run: python tests/data/replies/write_replies.py (it rewrites every ``*.eml`` and ``*.json`` here).

Every reply answers a Fifth Avenue game mail. Its body is a player's own text (one of TEXTS: commands, greetings,
sign-offs, signatures, talk to the game) in the shape one client gives a reply (SHAPES: where the quote goes, how
it is marked, the attribution or header block above it, the phone's or list's or company's lines). The sidecar
``<name>.json`` lists the player's own lines (``own``: only these may be listed as ignored in pbem's answer) and
which of them are commands (``commands``: they must be read as such). Written for pbem (issue 41, point 4): no
client's real mail is copied here, only the shapes that clients are known to give.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
GAME = "Fifth Avenue <game@pbem.example>"
SUBJECT = "[Fifth Avenue #1] your turn (decision 12)"

# Our mail as the player received it (pbem/services/mail_out/notices.py, templates/fifth_avenue/board.txt.j2).
OURS = """Done: cards brown violet

Waiting: Ann chooses an action (A, B, C or D).

Since your last mail:
* Cy played: move white 52E
  - Cy moved the white commissioner to 52nd Street East

Your turn: choose an action, answer by Wed 5 Nov 2026, 10:00 UTC
Commands now: A, B, C or D (their forms are below the board)

Fifth Avenue -- 3 players, front side of the board
Board for Ann (seat 1).
Waiting for: Ann chooses an action (A, B, C or D).

            +---------------------------------------------+
            |CH City Hall                                 |
            |commissioners here: beige                    |
            +---------------------------------------------+
  >3: Gal Per Per  4: Per Gal     -> 6 VP for 4+ districts

Your hand: orange 5, green 5, brown 4 5, violet 5 6, gray 4,
  black 4 4 6 6 (11 cards)
"""

# (own lines, of which commands)
TEXTS = [
    (["bid brown 4 6"], ["bid brown 4 6"]),
    (["Hi all,", "pass", "Cheers,", "Ann"], ["pass"]),
    (["A; cards orange gray"], ["A; cards orange gray"]),
    (["move white 42E", "Sorry for the delay, I was travelling."], ["move white 42E"]),
    (["B gallery 34W orange", "Thanks!"], ["B gallery 34W orange"]),
    (["Guten Morgen,", "bid gray 4 4", "Viele Grüße", "Jonas"], ["bid gray 4 4"]),
    (["pass", "Can we play faster next week?"], ["pass"]),
    (["Hello", "C beige 34E; cards brown violet; move beige TS", "Best regards,", "Cy"],
     ["C beige 34E; cards brown violet; move beige TS"]),
    (["stop 34W", "Good luck everyone"], ["stop 34W"]),
    (["Bonjour à tous,", "place 52E gray", "Bonne journée,", "Marie"], ["place 52E gray"]),
    (["Hi Bob and Cy,", "D", "Take care of the auction for me if I am late.", "Ann"], ["D"]),
]


def quoted(text: str, mark: str = "> ") -> str:
    return "\n".join((mark + line).rstrip() for line in text.splitlines())


def block(keys: tuple[str, str, str, str], sent: str) -> str:
    frm, when, to, subject = keys
    return f"{frm}: {GAME}\n{when}: {sent}\n{to}: Ann <ann@example.org>\n{subject}: {SUBJECT}\n"


ATTRIBUTION = "On Mon, 3 Nov 2026 at 10:02, Fifth Avenue <game@pbem.example> wrote:"
ENGLISH = ("From", "Sent", "To", "Subject")
GERMAN = ("Von", "Gesendet", "An", "Betreff")
CAUTION = ("CAUTION: This email originated from outside of the organization. Do not click links or open\n"
           "attachments unless you recognize the sender and know the content is safe.\n\n")
DISCLAIMER = ("\n\nThis email and any attachments are confidential and intended solely for the use of the\n"
              "individual to whom it is addressed. If you have received this email in error, please notify\n"
              "the sender and delete it.\n")

# name -> (client, body from the player's text)
SHAPES = {
    "gmail_top": ("Gmail, top-posted", lambda t: f"{t}\n\n{ATTRIBUTION}\n\n{quoted(OURS)}\n"),
    "gmail_bottom": ("Gmail, bottom-posted", lambda t: f"{ATTRIBUTION}\n\n{quoted(OURS)}\n\n{t}\n"),
    "gmail_german": ("Gmail in German", lambda t: f"{t}\n\nAm Mo., 3. Nov. 2026 um 10:02 Uhr schrieb {GAME}:\n\n"
                                                   f"{quoted(OURS)}\n"),
    "gmail_french": ("Gmail in French", lambda t: f"{t}\n\nLe lun. 3 nov. 2026 à 10:02, {GAME} a écrit :\n\n"
                                                   f"{quoted(OURS)}\n"),
    "gmail_wrapped_attribution": ("Gmail on a narrow screen, the attribution wrapped",
                                  lambda t: f"{t}\n\nOn Mon, 3 Nov 2026 at 10:02, Fifth Avenue\n"
                                            f"<game@pbem.example> wrote:\n\n{quoted(OURS)}\n"),
    "outlook_desktop": ("Outlook desktop", lambda t: f"{t}\n\n-----Original Message-----\n"
                                                     f"{block(ENGLISH, 'Monday, November 3, 2026 10:02 AM')}\n{OURS}"),
    "outlook_web": ("Outlook on the web", lambda t: f"{t}\n\n________________________________\n"
                                                    f"{block(ENGLISH, 'Monday, November 3, 2026 10:02')}\n{OURS}"),
    "outlook_mobile": ("Outlook for iOS", lambda t: f"{t}\n\nGet Outlook for iOS<https://aka.ms/o0ukef>\n"
                                                    f"________________________________\n"
                                                    f"{block(ENGLISH, 'Monday, November 3, 2026 10:02:11 AM')}\n{OURS}"),
    "outlook_german": ("Outlook in German", lambda t: f"{t}\n\n________________________________\n"
                                                      f"{block(GERMAN, 'Montag, 3. November 2026 10:02')}\n{OURS}"),
    "apple_mail": ("Apple Mail", lambda t: f"{t}\n\n> On 3 Nov 2026, at 10:02, {GAME} wrote:\n> \n{quoted(OURS)}\n"),
    "iphone": ("iPhone Mail", lambda t: f"{t}\n\nSent from my iPhone\n\n> On 3 Nov 2026, at 10:02, {GAME} wrote:\n"
                                         f"> \n{quoted(OURS)}\n"),
    "yahoo_unquoted": ("Yahoo Mail, the original unquoted",
                       lambda t: f"{t}\n\nOn Monday, November 3, 2026, 10:02:11 AM GMT+1, {GAME} wrote:\n\n\n{OURS}"),
    "yahoo_android": ("Yahoo Mail on Android",
                      lambda t: f"{t}\n\nSent from Yahoo Mail on Android\n\n  On Mon, Nov 3, 2026 at 10:02, "
                                f"Fifth Avenue<game@pbem.example> wrote:   \n{quoted(OURS)}\n"),
    "yahoo_original_message": ("Yahoo Mail, older", lambda t: f"{t}\n\n----- Original Message -----\n"
                                                              f"{block(ENGLISH, 'Monday, November 3, 2026 10:02 AM')}\n"
                                                              f"{OURS}"),
    "gmx": ("GMX", lambda t: f"{t}\n\nGesendet: Montag, 03. November 2026 um 10:02 Uhr\nVon: \"Fifth Avenue\" "
                             f"<game@pbem.example>\nAn: ann@example.org\nBetreff: {SUBJECT}\n\n{OURS}"),
    "webde_quoted": ("web.de, the original quoted",
                     lambda t: f"{t}\n\n\nGesendet: Montag, 03. November 2026 um 10:02 Uhr\nVon: \"Fifth Avenue\" "
                               f"<game@pbem.example>\nAn: ann@example.org\nBetreff: {SUBJECT}\n{quoted(OURS)}\n"),
    "thunderbird": ("Thunderbird", lambda t: f"{t}\n\nOn 03/11/2026 10:02, Fifth Avenue wrote:\n{quoted(OURS)}\n"),
    "thunderbird_german": ("Thunderbird in German",
                           lambda t: f"Am 03.11.26 um 10:02 schrieb Fifth Avenue:\n{quoted(OURS)}\n\n{t}\n"),
    "k9": ("K-9 Mail", lambda t: f"{t}\n-- \nSent from my Android device with K-9 Mail. Please excuse my brevity.\n\n"
                                 f"On November 3, 2026 10:02:11 AM UTC, {GAME} wrote:\n{quoted(OURS)}\n"),
    "fairemail": ("FairEmail", lambda t: f"{t}\n\n--\nSent with FairEmail\n\n{ATTRIBUTION}\n{quoted(OURS)}\n"),
    "mailman_list": ("a Mailman list", lambda t: f"{t}\n\n{ATTRIBUTION}\n{quoted(OURS)}\n\n"
                                                 "_______________________________________________\n"
                                                 "Boardgamers mailing list\nboardgamers@list.example\n"
                                                 "https://list.example/mailman/listinfo/boardgamers\n"),
    "google_groups": ("a Google Groups list", lambda t: f"{t}\n\n-- \nYou received this message because you are "
                                                        "subscribed to the Google Groups \"Boardgamers\" group.\n"
                                                        "To unsubscribe from this group, send an email to\n"
                                                        "boardgamers+unsubscribe@googlegroups.example.\n"),
    "groups_io": ("a Groups.io list", lambda t: f"{t}\n\n-=-=-=-=-=-=-=-=-=-=-=-\nGroups.io Links: You receive all "
                                                "messages sent to this group.\nView/Reply Online (#12): "
                                                "https://groups.io/g/boardgamers/message/12\n"),
    "underscore_footer": ("a list with a '__' footer", lambda t: f"{t}\n\n__\nBoardgamers list. To unsubscribe, "
                                                                 "send a mail to\nboardgamers-leave@list.example\n"),
    "corporate_banner": ("Outlook at a company: a CAUTION banner and a disclaimer",
                         lambda t: f"{CAUTION}{t}{DISCLAIMER}\n________________________________\n"
                                   f"{block(ENGLISH, 'Monday, November 3, 2026 10:02 AM')}\n{OURS}"),
    "external_tag": ("a company's [EXTERNAL] tag and a virus scanner's note",
                     lambda t: f"[EXTERNAL]\n\n{t}\n\nThis email has been checked for viruses by Avast antivirus "
                               f"software.\nwww.avast.com\n\n{ATTRIBUTION}\n{quoted(OURS)}\n"),
    "qp_soft_breaks": ("an attribution broken by quoted-printable soft line breaks left undecoded",
                       lambda t: f"{t}\n\nOn Mon, 3 Nov 2026 at 10:02, Fifth Avenue <game@pbem.example> wr=\note:\n"
                                 f"{quoted(OURS)}\n"),
    "pasted_unquoted": ("our game mail pasted under the text without quote marks", lambda t: f"{t}\n\n{OURS}"),
    # Shapes written after the reader's rules, to see how they hold on clients they were not made for.
    "proton_mail": ("Proton Mail", lambda t: f"{t}\n\nSent with Proton Mail secure email.\n\n"
                                             "------- Original Message -------\nOn Monday, November 3rd, 2026 at "
                                             f"10:02, {GAME} wrote:\n\n\n{quoted(OURS)}\n"),
    "samsung_email": ("Samsung Email", lambda t: f"{t}\n\n\nSent from my Galaxy\n\n\n-------- Original message "
                                                 f"--------\nFrom: {GAME}\nDate: 03/11/2026 10:02 (GMT+01:00)\n"
                                                 f"To: Ann <ann@example.org>\nSubject: {SUBJECT}\n\n{OURS}"),
    "outlook_mac": ("Outlook for Mac", lambda t: f"{t}\n\nFrom: {GAME}\nDate: Monday, 3 November 2026 at 10:02\n"
                                                 f"To: Ann <ann@example.org>\nSubject: {SUBJECT}\n\n{OURS}"),
    "spark": ("Spark", lambda t: f"{t}\n\nOn 3 Nov 2026 at 10:02 +0100, {GAME}, wrote:\n{quoted(OURS)}\n"),
    "fastmail": ("Fastmail", lambda t: f"{t}\n\nOn Mon, 3 Nov 2026, at 10:02, Fifth Avenue wrote:\n{quoted(OURS)}\n"),
    "roundcube": ("Roundcube in German", lambda t: f"{t}\n\nAm 03.11.2026 10:02, schrieb Fifth Avenue:\n"
                                                   f"{quoted(OURS)}\n"),
    "outlook_android": ("Outlook for Android", lambda t: f"{t}\n\nGet Outlook for Android<https://aka.ms/AAb9ysg>\n"
                                                         f"________________________________\n"
                                                         f"{block(ENGLISH, 'Monday, November 3, 2026 10:02:11 AM')}"
                                                         f"\n{OURS}"),
    "mutt": ("Mutt", lambda t: f"* Fifth Avenue <game@pbem.example> [2026-11-03 10:02]:\n{quoted(OURS)}\n\n{t}\n"),
}


def write() -> int:
    for old in list(HERE.glob("*.eml")) + list(HERE.glob("*.json")):
        old.unlink()
    count = 0
    for s, (name, (client, shape)) in enumerate(SHAPES.items()):
        for k in range(3):  # three texts a shape, a different three for each
            own, commands = TEXTS[(s * 3 + k) % len(TEXTS)]
            body = shape("\n".join(own))
            stem = f"{name}_{k + 1}"
            head = (f"From: Ann <ann@example.org>\nTo: {GAME}\nSubject: Re: {SUBJECT}\n"
                    f"Date: Mon, 3 Nov 2026 10:20:00 +0100\nMessage-ID: <{stem}@client.example>\nMIME-Version: 1.0\n"
                    "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n")
            (HERE / f"{stem}.eml").write_text(head + body, encoding="utf-8")
            (HERE / f"{stem}.json").write_text(json.dumps({"client": client, "own": own, "commands": commands},
                                                          ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
            count += 1
    return count


if __name__ == "__main__":
    print(f"{write()} replies written in {HERE}")
