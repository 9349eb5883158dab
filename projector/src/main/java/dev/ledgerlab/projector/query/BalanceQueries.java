package dev.ledgerlab.projector.query;

import dev.ledgerlab.problems.ApiProblem;
import dev.ledgerlab.problems.ProblemType;
import dev.ledgerlab.projector.ProjectorProperties;
import dev.ledgerlab.projector.replay.ReplayQueries;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The SQL of the projection's reads. Each read is one statement, so one snapshot, that also asks whether an in-place
 * replay is rebuilding the projection: a half-built balance is never presented as current, whichever instance
 * started the replay; while one runs, a read fails as {@code 503 projection-rebuilding}.
 */
@Component
public class BalanceQueries {

    /** An account's projected balance and version. */
    public record BalanceView(UUID accountId, long balance, long version) {
    }

    /**
     * @param positions per partition, the next offset the live group will apply: the log positions the total reflects
     */
    public record ProjectedTotal(BigInteger balance, long accounts, Map<Integer, Long> positions) {
    }

    private final JdbcClient jdbc;
    private final ProjectorProperties properties;
    private final ReplayQueries replays;

    BalanceQueries(JdbcClient jdbc, ProjectorProperties properties, ReplayQueries replays) {
        this.jdbc = jdbc;
        this.properties = properties;
        this.replays = replays;
    }

    /** The projected balance, empty if the projection does not know the account. */
    Optional<BalanceView> balance(UUID accountId) {
        var read = read(accountId);
        if (read.replay() != null) {
            throw rebuilding(read.replay());
        }
        return Optional.ofNullable(read.balance());
    }

    /** The sum of the projected balances, the accounts counted and the stored offsets, from one snapshot. */
    ProjectedTotal total() {
        record Read(Long replay, ProjectedTotal total) {
        }
        var read = jdbc.sql("""
                SELECT r.id, (SELECT coalesce(sum(balance), 0) FROM projection.balances),
                       (SELECT count(*) FROM projection.balances),
                       (SELECT array_agg(partition ORDER BY partition) FROM projection.offsets
                        WHERE group_id = ? AND topic = ?),
                       (SELECT array_agg(next_offset ORDER BY partition) FROM projection.offsets
                        WHERE group_id = ? AND topic = ?)
                FROM (SELECT 1) one
                LEFT JOIN projection.replays r ON r.kind = 'replay' AND r.state = 'running'""")
                .params(properties.groupId(), properties.topic(), properties.groupId(), properties.topic())
                .query((rs, row) -> {
                    var positions = new TreeMap<Integer, Long>();
                    var partitions = rs.getArray(4);
                    var offsets = rs.getArray(5);
                    if (partitions != null) {
                        var p = (Integer[]) partitions.getArray();
                        var o = (Long[]) offsets.getArray();
                        for (int i = 0; i < p.length; i++) {
                            positions.put(p[i], o[i]);
                        }
                    }
                    return new Read(rs.getObject(1, Long.class), new ProjectedTotal(
                            rs.getBigDecimal(2).toBigIntegerExact(), rs.getLong(3), positions));
                })
                .single();
        if (read.replay() != null) {
            throw rebuilding(read.replay());
        }
        return read.total();
    }

    /** The balance, or the in-place replay that is rebuilding the projection, if one is. */
    private record Read(Long replay, BalanceView balance) {
    }

    /**
     * One statement, so one snapshot: a balance is only ever answered from a projection that no replay was
     * rebuilding at that instant, whichever instance started the replay.
     */
    private Read read(UUID accountId) {
        return jdbc.sql("""
                SELECT r.id, b.account_id, b.balance, b.version FROM (SELECT 1) one
                LEFT JOIN projection.replays r ON r.kind = 'replay' AND r.state = 'running'
                LEFT JOIN projection.balances b ON b.account_id = ?""")
                .param(accountId)
                .query((rs, row) -> new Read(rs.getObject(1, Long.class), rs.getObject(2) == null ? null
                        : new BalanceView(rs.getObject(2, UUID.class), rs.getLong(3), rs.getLong(4))))
                .single();
    }

    private ApiProblem rebuilding(long replayId) {
        Map<String, Object> details = new HashMap<>();
        details.put("replayId", replayId);
        var detail = "the projection is being replayed from offset zero (replay " + replayId + ")";
        try {
            var progress = replays.progress(replayId);
            details.put("percent", progress.percent());
            details.put("estimatedSecondsLeft", progress.estimatedSecondsLeft());
            detail += ", " + progress.percent() + " % done; see GET /projection/replay";
        } catch (RuntimeException e) {
            // The replay ended between the two reads: the next request gets the balance.
        }
        return new ApiProblem(ProblemType.PROJECTION_REBUILDING, detail, details);
    }
}
