#!/usr/bin/env bash
# The server's CPU per move, two checkouts side by side in one sitting, alternating:
#   scripts/loadtest_pair.sh OLD_CHECKOUT NEW_CHECKOUT [ROUNDS]
# (e.g. OLD_CHECKOUT from `git worktree add /tmp/old 76861ba`). Each round runs
# `flip7 loadtest --tables 200 --clients 4 --think 0.5 --duration 20` against each checkout's
# own `flip7 serve` (fresh SQLite) and prints moves/s, p99 and the server's CPU per move.
set -euo pipefail
old=$(cd "$1" && pwd); new=$(cd "$2" && pwd); rounds=${3:-3}
python=${PYTHON:-$(dirname "$0")/../.venv/bin/python}
for tree in "$old" "$new"; do "$python" -m compileall -q "$tree/src" >/dev/null; done
summary='
import json, sys
d = json.load(sys.stdin)
rate, p99, cpu = d["moves_per_second"], d["p99_ms"], d["server_cpu_percent"]
errors, load = d["errors"]["count"], d["load_average"]
per_move = cpu / 100 / rate * 1000
print(f"round {sys.argv[1]} {sys.argv[2]}: {rate:.0f} moves/s, p99 {p99:.1f} ms, server "
      f"{cpu:.0f} % of a core, {per_move:.3f} ms CPU per move, errors {errors}, load {load}")
'
for round in $(seq "$rounds"); do
  for tree in "$old" "$new"; do
    PYTHONPATH="$tree/src" "$python" -m flip7 loadtest --tables 200 --clients 4 --think 0.5 \
      --duration 20 --warmup 5 --json 2>/dev/null | "$python" -c "$summary" "$round" "$tree"
  done
done
