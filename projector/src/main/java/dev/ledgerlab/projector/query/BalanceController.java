package dev.ledgerlab.projector.query;

import dev.ledgerlab.problems.ApiProblem;
import dev.ledgerlab.problems.PathIds;
import dev.ledgerlab.problems.ProblemType;
import dev.ledgerlab.problems.Refusals;
import dev.ledgerlab.projector.ProjectorProperties;
import dev.ledgerlab.projector.apply.ProjectionSignals;
import dev.ledgerlab.projector.replay.ReplayQueries;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Refusals(ProblemType.DATABASE_UNAVAILABLE)
public class BalanceController {

    public record BalanceView(UUID accountId, long balance, long version) {
    }

    /** Commits of other projector instances raise no local signal: re-read at least this often while waiting. */
    private static final long PEER_POLL_MILLIS = 50;

    private final JdbcClient jdbc;
    private final ProjectionSignals signals;
    private final ProjectorProperties properties;
    private final ReplayQueries replays;

    public BalanceController(JdbcClient jdbc, ProjectionSignals signals, ProjectorProperties properties,
            ReplayQueries replays) {
        this.jdbc = jdbc;
        this.signals = signals;
        this.properties = properties;
        this.replays = replays;
    }

    /**
     * The projected balance. With {@code minVersion=N} (the version a command returned), waits up to
     * {@code projector.read-your-writes-timeout} for the projection to reach it, then answers 503
     * {@code projection-behind} with Retry-After. While an in-place replay rebuilds the projection, answers 503
     * {@code projection-rebuilding}: a half-built balance is never presented as current.
     */
    @GetMapping(path = "/accounts/{id}/balance", produces = MediaType.APPLICATION_JSON_VALUE)
    @Refusals({ProblemType.INVALID_ACCOUNT_ID, ProblemType.INVALID_MIN_VERSION, ProblemType.ACCOUNT_NOT_FOUND, ProblemType.PROJECTION_BEHIND, ProblemType.PROJECTION_REBUILDING})
    public ResponseEntity<BalanceView> balance(@PathVariable("id") String id,
            @RequestParam(name = "minVersion", required = false) String minVersionText) throws InterruptedException {
        var accountId = PathIds.accountId(id);
        var minVersion = minVersion(minVersionText);
        if (minVersion == null) {
            return answer(java.util.Optional.ofNullable(balanceOrRebuilding(accountId)).orElseThrow(() -> notFound(id)));
        }
        long deadline = System.nanoTime() + properties.readYourWritesTimeout().toNanos();
        // The records' keys are the account ids as UUID.toString() writes them (BatchDecision refuses any other).
        var account = accountId.toString();
        long seen = signals.watch(account);
        try {
            while (true) {
                var balance = java.util.Optional.ofNullable(balanceOrRebuilding(accountId));
                if (balance.isPresent() && balance.get().version() >= minVersion) {
                    return answer(balance.get());
                }
                long remainingMillis = (deadline - System.nanoTime()) / 1_000_000;
                if (remainingMillis <= 0) {
                    Map<String, Object> details = new HashMap<>();
                    details.put("minVersion", minVersion);
                    details.put("currentVersion", balance.map(BalanceView::version).orElse(0L));
                    throw new ApiProblem(ProblemType.PROJECTION_BEHIND,
                            "account " + accountId + " is projected at version " + details.get("currentVersion")
                                    + ", not yet " + minVersion + ", after waiting "
                                    + properties.readYourWritesTimeout().toMillis() + " ms",
                            details);
                }
                // Woken by a commit of this process that touched the account; another instance's commits (or a
                // replay's) are seen by reading again every PEER_POLL_MILLIS.
                seen = signals.awaitCommitAfter(account, seen, Math.min(remainingMillis, PEER_POLL_MILLIS));
            }
        } finally {
            signals.unwatch(account);
        }
    }

    /** The projected balance (null if the account is not projected), or 503 while a replay rebuilds the projection. */
    private BalanceView balanceOrRebuilding(UUID accountId) {
        var read = read(accountId);
        if (read.replay() != null) {
            throw rebuilding(read.replay());
        }
        return read.balance();
    }

    private static ResponseEntity<BalanceView> answer(BalanceView balance) {
        return ResponseEntity.ok().eTag("\"" + balance.version() + "\"").body(balance);
    }

    /**
     * @param positions per partition, the next offset the live group will apply: the log positions the total reflects
     */
    public record ProjectedTotal(BigInteger balance, long accounts, Map<Integer, Long> positions) {
    }

    /**
     * The sum of the projected balances, the accounts counted and the stored offsets, all in one statement, so from
     * one snapshot. While transfers flow it can differ from the write side's total (a transfer's two events sit in two
     * partitions and are applied at different moments); once the pipeline is quiet it is equal.
     */
    @GetMapping(path = "/projection/total", produces = MediaType.APPLICATION_JSON_VALUE)
    public ProjectedTotal total() {
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

    private static Long minVersion(String text) {
        if (text == null) {
            return null;
        }
        try {
            long version = Long.parseLong(text);
            if (version >= 1) {
                return version;
            }
        } catch (NumberFormatException e) {
            // same refusal as a non-positive number
        }
        throw new ApiProblem(ProblemType.INVALID_MIN_VERSION, "minVersion must be a positive integer, got " + text);
    }

    private static ApiProblem notFound(String id) {
        return new ApiProblem(ProblemType.ACCOUNT_NOT_FOUND, "the projection knows no account " + id);
    }
}
