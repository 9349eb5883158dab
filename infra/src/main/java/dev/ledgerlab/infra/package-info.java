/**
 * The embedded stack: a real PostgreSQL server and a real KRaft Kafka broker, started from the JVM with their data on disk.
 */
package dev.ledgerlab.infra;
