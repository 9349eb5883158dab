package dev.ledgerlab.commandapi.account;

import java.math.BigInteger;
import java.util.Optional;
import java.util.UUID;
import org.springframework.data.jdbc.repository.query.Query;
import org.springframework.data.repository.Repository;

/**
 * {@code ledger.accounts}, the account aggregates. Only what the commands and the reads need: no delete, no
 * listing. The invariants stay in the schema ({@code CHECK (balance >= 0)}, V1 migration), below any code.
 */
public interface AccountRepository extends Repository<Account, UUID> {

    Optional<Account> findById(UUID id);

    /**
     * The account a command is decided on, its row locked ({@code SELECT ... FOR UPDATE}) until the command's
     * transaction ends: commands on one account queue here, and each decides on the state the one before it left.
     * Written out rather than derived with {@code @Lock(PESSIMISTIC_WRITE)}, which says the same: Spring Data JDBC
     * 4.0 renders a derived query's SQL anew at every call (PartTreeJdbcQuery), on every deposit's request thread.
     */
    @Query("SELECT * FROM ledger.accounts WHERE account_id = :id FOR UPDATE")
    Optional<Account> findForCommandById(UUID id);

    /**
     * Inserts an account at version 0 as version 1; updates a loaded one only where its version is still the one it
     * was loaded at, raising it by one ({@code @Version}; none: OptimisticLockingFailureException).
     */
    Account save(Account account);

    /** The sum of all balances and the number of accounts, both from one statement: one snapshot. */
    record Total(BigInteger balance, long accounts) {
    }

    // An aggregate over every row: SQL says it, a derived query cannot.
    @Query("SELECT coalesce(sum(balance), 0) AS balance, count(*) AS accounts FROM ledger.accounts")
    Total total();
}
