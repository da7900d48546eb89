#!/usr/bin/env bash
# Installs the system packages the test suite runs for real, from Debian: Dovecot (IMAP + LMTP) and
# headless Chromium with its WebDriver (the browser tests, pbem_testing.browser).
# PostgreSQL is expected at 127.0.0.1:5432 (this machine's own service). Needs root or sudo.
# Idempotent and quiet: only the missing package sets are installed, nothing is done when all are there,
# and apt's output is shown only when it fails.
set -euo pipefail

# A program on PATH or in the sbin directories (a normal user's PATH on Debian lacks /usr/sbin).
have() {
    command -v "$1" >/dev/null 2>&1 || PATH="/usr/sbin:/usr/local/sbin:/sbin:$PATH" command -v "$1" >/dev/null 2>&1
}

missing=()
have dovecot || missing+=(dovecot-imapd dovecot-lmtpd)
have chromium || missing+=(chromium)
have chromedriver || missing+=(chromium-driver)
[ "${#missing[@]}" -eq 0 ] && exit 0

as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
apt_log="$(mktemp)"
if ! { "${as_root[@]}" apt-get update -qq \
       && DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends \
            "${missing[@]}"; } </dev/null >"$apt_log" 2>&1; then
    cat "$apt_log" >&2
    rm -f "$apt_log"
    echo "installing ${missing[*]} failed" >&2
    exit 1
fi
rm -f "$apt_log"
