#!/usr/bin/env bash
# Figures of a running lab (./ledger-lab), for the README and issue notes. Not a test: numbers, no verdict.
#   scripts/lab-figures.sh [deposits=1000] [samples=100]
# Prints the lab JVM's resident memory after the deposits, and the time from a deposit's response to its balance
# being visible in the projection (GET .../balance?minVersion=N), median and worst of the samples.
set -euo pipefail
deposits=${1:-1000}
samples=${2:-100}
api=${COMMAND_API:-http://localhost:8080}
projector=${PROJECTOR:-http://localhost:8081}
pid=${LAB_PID:-$(pgrep -f 'ledger-lab.jar' | head -1)}

ms() { echo $(( $(date +%s%N) / 1000000 )); }
account=$(curl -sf -X POST "$api/accounts" -H 'Content-Type: application/json' -d '{"owner":"figures"}' \
  | sed -E 's/.*"accountId":"([^"]+)".*/\1/')
started=$(ms)
for _ in $(seq "$deposits"); do
  curl -sf -o /dev/null -X POST "$api/accounts/$account/deposits" -H 'Content-Type: application/json' -d '{"amount":1}'
done
echo "deposits: $deposits in $(( $(ms) - started )) ms (sequential curl)"
echo "lab JVM resident memory after them: $(( $(awk '/VmRSS/ {print $2}' /proc/"$pid"/status) / 1024 )) MiB (pid $pid)"

waits=()
for _ in $(seq "$samples"); do
  version=$(curl -sf -X POST "$api/accounts/$account/deposits" -H 'Content-Type: application/json' -d '{"amount":1}' \
    | sed -E 's/.*"version":([0-9]+).*/\1/')
  t0=$(ms)
  status=$(curl -s -o /dev/null -w '%{http_code}' "$projector/accounts/$account/balance?minVersion=$version")
  [ "$status" = 200 ] || { echo "balance at version $version not visible: HTTP $status" >&2; exit 1; }
  waits+=($(( $(ms) - t0 )))
done
sorted=($(printf '%s\n' "${waits[@]}" | sort -n))
echo "deposit response -> balance visible: median ${sorted[$(( samples / 2 ))]} ms, worst ${sorted[$(( samples - 1 ))]} ms of $samples"
