/** A benchmark of the replay against a bare Kafka consumer, run by hand (scripts/replay-benchmark.sh), not by the build. */
package dev.ledgerlab.projector.bench;
