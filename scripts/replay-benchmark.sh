#!/usr/bin/env bash
# Replay rate of the projector against a bare Kafka consumer of the same topic, measured in one run on an embedded
# PostgreSQL and Kafka in a scratch directory (see projector/src/test/java/dev/ledgerlab/projector/bench). Numbers,
# no verdict; not part of ./mvnw verify. Takes ~2 minutes for the defaults on 2 cores.
#   scripts/replay-benchmark.sh [--events=1000000] [--accounts=10000] [--partitions=6] [--runs=3] [--fsync=on]
#                               [--max-poll-records=N] [--concurrency=N] [--load=200]
# Extra JVM options (a profiler, a heap size) go in BENCH_JAVA_OPTS; Maven options (e.g. -o) in MVNW_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -B -q ${MVNW_ARGS:-} -pl projector -am install -DskipTests
./mvnw -B -q ${MVNW_ARGS:-} -pl projector dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile=target/bench.classpath
exec java -Xmx2g ${BENCH_JAVA_OPTS:-} \
  -cp "projector/target/test-classes:projector/target/classes:$(cat projector/target/bench.classpath)" \
  dev.ledgerlab.projector.bench.ReplayBenchmark "$@"
