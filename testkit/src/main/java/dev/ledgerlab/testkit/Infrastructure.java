package dev.ledgerlab.testkit;

/**
 * Where the tests find PostgreSQL (database {@code ledger}, as a superuser) and Kafka.
 */
public record Infrastructure(String jdbcUrl, String username, String password, String bootstrapServers) {
}
