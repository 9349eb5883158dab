package dev.ledgerlab.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * One-statement JDBC helpers for the tests, as the superuser (the embedded server trusts every loopback connection).
 */
final class Sql {

    private Sql() {
    }

    static String query(String jdbcUrl, String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl, "postgres", "");
             Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery(sql)) {
            assertThat(rs.next()).as("a row from %s", sql).isTrue();
            return rs.getString(1);
        }
    }

    static void execute(String jdbcUrl, String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl, "postgres", "");
             Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
