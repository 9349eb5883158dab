/** The Kafka side: the outbox topic, created once with a fixed partition count, and the idempotent producer. */
package dev.ledgerlab.relay.kafka;
