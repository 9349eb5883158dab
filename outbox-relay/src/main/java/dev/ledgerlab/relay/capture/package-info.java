/** Change data capture: Debezium's embedded engine reads ledger.events from the WAL and hands batches to the publisher. */
package dev.ledgerlab.relay.capture;
