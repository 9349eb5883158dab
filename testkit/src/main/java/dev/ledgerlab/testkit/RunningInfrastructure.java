package dev.ledgerlab.testkit;

/**
 * Servers started for the tests, stopped by {@link #close()}.
 */
interface RunningInfrastructure extends AutoCloseable {

    Infrastructure infrastructure();

    /**
     * What runs, for the one line printed at start, e.g. "embedded PostgreSQL 127.0.0.1:5432".
     */
    String description();

    @Override
    void close();
}
