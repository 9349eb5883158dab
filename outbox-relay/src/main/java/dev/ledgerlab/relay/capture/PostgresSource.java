package dev.ledgerlab.relay.capture;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import org.postgresql.Driver;
import org.postgresql.PGProperty;

/**
 * The database the relay reads, given as the usual {@code spring.datasource.*} JDBC URL. Debezium wants host, port
 * and database separately; the PostgreSQL driver's own URL parser splits them, so both agree on what the URL means.
 */
public record PostgresSource(String jdbcUrl, String username, String password) {

    public PostgresSource {
        var parsed = Driver.parseURL(jdbcUrl, null);
        if (parsed == null) {
            throw new IllegalArgumentException("not a PostgreSQL JDBC URL: " + jdbcUrl);
        }
        if (PGProperty.PG_HOST.getOrDefault(parsed).contains(",")) {
            throw new IllegalArgumentException("the relay needs one PostgreSQL host (the primary), not a list: " + jdbcUrl);
        }
    }

    public String host() {
        return PGProperty.PG_HOST.getOrDefault(parsed());
    }

    public int port() {
        return Integer.parseInt(PGProperty.PG_PORT.getOrDefault(parsed()));
    }

    public String database() {
        return PGProperty.PG_DBNAME.getOrDefault(parsed());
    }

    /** A plain connection outside any pool, named in {@code pg_stat_activity} by {@code applicationName}. */
    public Connection connect(String applicationName) throws SQLException {
        var properties = new Properties();
        properties.setProperty(PGProperty.USER.getName(), username);
        if (password != null) {
            properties.setProperty(PGProperty.PASSWORD.getName(), password);
        }
        properties.setProperty(PGProperty.APPLICATION_NAME.getName(), applicationName);
        return DriverManager.getConnection(jdbcUrl, properties);
    }

    private Properties parsed() {
        return Driver.parseURL(jdbcUrl, null);
    }

    @Override
    public String toString() {
        return "PostgresSource[" + jdbcUrl + ", user " + username + "]";
    }
}
