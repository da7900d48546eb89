#!/usr/bin/env bash
# The suite on a busy machine (issue 40): CPU burners keep every core busy while the tests run, as other work
# loads a shared CI machine. A test that waits on the clock instead of on its event fails here first.
#
#   bash tests/load-check.sh suite [RUNS]     the README's test command (python -m pytest), RUNS times (2)
#   bash tests/load-check.sh modules [RUNS]   the flood, storm and worker modules, RUNS times each (20)
#   bash tests/load-check.sh modules RUNS MODULE...   only these test modules, RUNS times each
#
# The modules take long under load (one round of all seven: 25-30 minutes beside other work on 2 CPUs), so two
# clones may share the rounds: one runs the flood and storm modules, the other the worker modules, one of them
# with burners (BURNERS=0 for the other keeps the load the same). The five worker modules alone, with 2 burners
# and nothing else running: about 5 minutes a round.
#
# Do not pause a run (SIGSTOP to its process group, to time something else quietly): the tests' ceilings and
# their subprocesses' timeouts run on while it is stopped, and the run fails for that (stop 53: `pbem config
# check`'s 120 s ran out during a 28-minute pause). End it between runs instead and start the rounds again.
#
# Run it from the repository's root with the test environment active (the README's second command sets it up).
# BURNERS (default: one per CPU, every core kept busy) busy loops run at the tests' own priority. Each run's
# output is kept in test-artifacts/load-check/; the last lines say how many runs failed, and the exit code is 1
# if any did.
set -uo pipefail
cd "$(dirname "$0")/.."

what="${1:-}"
case "$what" in
    suite) runs="${2:-2}" ;;
    modules) runs="${2:-20}" ;;
    *) echo "usage: bash tests/load-check.sh suite|modules [RUNS]" >&2; exit 1 ;;
esac
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "error: RUNS must be a whole number above 0, not '$runs'" >&2; exit 1; }
burners="${BURNERS:-$(nproc)}"
[[ "$burners" =~ ^[0-9]+$ ]] || { echo "error: BURNERS must be a whole number, not '$burners'" >&2; exit 1; }

DEFAULT_MODULES=(
    tests/e2e/test_floods.py
    tests/e2e/test_storm.py
    tests/e2e/test_worker_mail.py
    tests/e2e/test_worker_forever.py
    tests/e2e/test_worker_faults.py
    tests/e2e/test_worker_database_away.py
    tests/integration/test_worker_process.py
)
MODULES=("${DEFAULT_MODULES[@]}")
if [ "$what" = modules ] && [ "$#" -gt 2 ]; then
    MODULES=("${@:3}")
    for module in "${MODULES[@]}"; do
        [ -f "$module" ] || { echo "error: no test module $module" >&2; exit 1; }
    done
elif [ "$#" -gt 2 ]; then
    echo "error: only 'modules' takes test modules after RUNS" >&2
    exit 1
fi

logs="test-artifacts/load-check/$(date -u +%Y%m%d-%H%M%S)-$what"
mkdir -p "$logs"
pids=()
stop_burners() {
    [ "${#pids[@]}" -gt 0 ] && kill "${pids[@]}" 2>/dev/null
    wait 2>/dev/null
}
trap stop_burners EXIT
for _ in $(seq "$burners"); do
    python3 -c 'while True: pass' &
    pids+=($!)
done
echo "load-check: $burners CPU burners on $(nproc) CPUs; logs in $logs"

failed=0
total=0
run() {  # run NAME ARGS...: one pytest run, its output in the logs, its verdict on one line
    local name="$1"
    shift
    local log="$logs/$name.log" started=$SECONDS
    total=$((total + 1))
    if python -m pytest -p no:cacheprovider "$@" >"$log" 2>&1; then
        echo "ok     $name ($((SECONDS - started)) s, load $(cut -d' ' -f1 /proc/loadavg))"
    else
        failed=$((failed + 1))
        echo "FAILED $name ($((SECONDS - started)) s): $(grep -E '^(FAILED|ERROR) ' "$log" | head -3 | tr '\n' ' ')"
    fi
}

for n in $(seq "$runs"); do
    if [ "$what" = suite ]; then
        run "suite-$n"
    else
        for module in "${MODULES[@]}"; do
            run "$(basename "$module" .py)-$n" "$module"
        done
    fi
done
echo "load-check $what: $failed of $total runs failed"
[ "$failed" -eq 0 ]
