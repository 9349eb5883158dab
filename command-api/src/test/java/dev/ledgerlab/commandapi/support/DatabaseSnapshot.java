package dev.ledgerlab.commandapi.support;

import org.springframework.jdbc.core.simple.JdbcClient;

/** Row counts and a digest of every row of the write side, to prove a refused request changed nothing. */
public record DatabaseSnapshot(long accounts, long events, long idempotencyKeys, String digest) {

    static DatabaseSnapshot of(JdbcClient jdbc) {
        return jdbc.sql("""
                SELECT (SELECT count(*) FROM ledger.accounts),
                       (SELECT count(*) FROM ledger.events),
                       (SELECT count(*) FROM ledger.idempotency_keys),
                       md5(coalesce((SELECT string_agg(a::text, '|' ORDER BY account_id) FROM ledger.accounts a), '')
                           || coalesce((SELECT string_agg(e::text, '|' ORDER BY position) FROM ledger.events e), '')
                           || coalesce((SELECT string_agg(k::text, '|' ORDER BY idempotency_key)
                                        FROM ledger.idempotency_keys k), ''))""")
                .query((rs, row) -> new DatabaseSnapshot(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getString(4)))
                .single();
    }
}
