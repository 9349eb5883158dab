package dev.ledgerlab.commandapi.idempotency;

import javax.sql.DataSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The command API's transaction manager keeps the failure of a COMMIT. Boot's default, {@code JdbcTransactionManager},
 * turns a failed commit into a {@code DataAccessException}, upon which Spring rolls back on the connection that has
 * just broken; the pool has evicted it, the rollback fails as well ("Connection is closed", no SQLSTATE), and its
 * exception replaces the commit's. The command API then could not see that the connection broke <em>while
 * committing</em> and answered 500 "wrote nothing" for a command that PostgreSQL may have committed. Spring's
 * {@code DataSourceTransactionManager} reports a failed commit as a {@code TransactionSystemException} that carries
 * the driver's exception, and does not roll back after it ({@code rollbackOnCommitFailure} stays false: PostgreSQL
 * has already ended a transaction whose COMMIT failed). Proved by {@code BrokenCommitTest}.
 */
@Configuration(proxyBeanMethods = false)
class TransactionManagerConfiguration {

    @Bean
    DataSourceTransactionManager transactionManager(DataSource dataSource) {
        return new DataSourceTransactionManager(dataSource);
    }
}
