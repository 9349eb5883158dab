/** The outbox relay: publishes every row of ledger.events to Kafka, keyed by account, at least once. */
package dev.ledgerlab.relay;
