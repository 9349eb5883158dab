/** The read side: a Kafka consumer group that applies account events idempotently to projection.balances. */
package dev.ledgerlab.projector;
