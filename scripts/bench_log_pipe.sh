#!/usr/bin/env bash
# Server CPU per move with its JSON log (standard error) to a file or to a pipe.
#   scripts/bench_log_pipe.sh file|pipe [port]
# Starts `kozyr serve` (SQLite in a temporary directory), runs
# `kozyr bench server --url` against it (1,000 connections, think 1 s), and reads
# the server's CPU (/proc/PID/stat) and moves (/health) over 20 s in the middle
# of the run.  PYTHONPATH picks the code to measure (default: this checkout).
set -euo pipefail
mode=${1:?file or pipe}
port=${2:-8731}
here="$(cd "$(dirname "$0")/.." && pwd)"
py="$here/.venv/bin/python"
export PYTHONPATH="${PYTHONPATH:-$here/src}"
tmp="$(mktemp -d)"
trap 'kill "$server" 2>/dev/null || true; rm -rf "$tmp"' EXIT
serve=("$py" -c "import sys; from kozyr.cli.main import main; sys.exit(main())" serve
       --port "$port" --db "sqlite:///$tmp/bench.db" --bot-workers 1)
if [[ $mode == pipe ]]; then
    "${serve[@]}" 2> >(cat > "$tmp/server.log") &
else
    "${serve[@]}" 2> "$tmp/server.log" &
fi
server=$!
health() { curl -fs "http://127.0.0.1:$port/health" | "$py" -c "import sys, json; print(json.load(sys.stdin)['moves'])"; }
cpu() { awk '{print $14 + $15}' "/proc/$server/stat"; }
for _ in $(seq 50); do health >/dev/null 2>&1 && break; sleep 0.2; done
"$here/kozyr" bench server --url "ws://127.0.0.1:$port/ws" --connections 1000 \
    --duration 30 --think 1.0 --json > "$tmp/bench.json" &
bench=$!
sleep 12  # connected and playing
t0=$(cpu); m0=$(health)
sleep 20
t1=$(cpu); m1=$(health)
wait "$bench"
ticks=$(getconf CLK_TCK)
"$py" -c "print(f'log to a $mode: {$m1 - $m0} moves, server CPU/move {($t1 - $t0) / $ticks * 1000 / ($m1 - $m0):.3f} ms')"
