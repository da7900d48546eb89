#!/usr/bin/env bash
# Installs the system packages the test suite runs for real: Dovecot (IMAP + LMTP) from Debian.
# PostgreSQL is expected at 127.0.0.1:5432 (this machine's own service). Needs root or sudo.
set -euo pipefail
if command -v dovecot >/dev/null 2>&1 || [ -x /usr/sbin/dovecot ]; then
    exit 0
fi
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
apt_log="$(mktemp)"
if ! { "${as_root[@]}" apt-get update -qq \
       && DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends \
            dovecot-imapd dovecot-lmtpd; } </dev/null >"$apt_log" 2>&1; then
    cat "$apt_log" >&2
    echo "installing dovecot-imapd dovecot-lmtpd failed" >&2
    exit 1
fi
rm -f "$apt_log"
