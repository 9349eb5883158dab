package dev.ledgerlab.projector.query;

import dev.ledgerlab.problems.ApiProblem;
import dev.ledgerlab.problems.ProblemType;
import dev.ledgerlab.projector.ProjectorProperties;
import dev.ledgerlab.projector.apply.ProjectionSignals;
import dev.ledgerlab.projector.query.BalanceQueries.BalanceView;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.springframework.stereotype.Component;

/**
 * Read-your-writes: waits up to {@code projector.read-your-writes-timeout} for the projection to reach the version a
 * command returned, then gives up with {@code 503 projection-behind}. Woken by this process's commits that touched
 * the account ({@link ProjectionSignals}); another instance's commits, or a replay's, are seen by reading again.
 */
@Component
class ReadYourWrites {

    /** Commits of other projector instances raise no local signal: re-read at least this often while waiting. */
    private static final long PEER_POLL_MILLIS = 50;

    private final BalanceQueries queries;
    private final ProjectionSignals signals;
    private final ProjectorProperties properties;

    ReadYourWrites(BalanceQueries queries, ProjectionSignals signals, ProjectorProperties properties) {
        this.queries = queries;
        this.signals = signals;
        this.properties = properties;
    }

    /** The balance once its version is at least {@code minVersion}. */
    BalanceView await(UUID accountId, long minVersion) throws InterruptedException {
        long deadline = System.nanoTime() + properties.readYourWritesTimeout().toNanos();
        // The records' keys are the account ids as UUID.toString() writes them (BatchDecision refuses any other).
        var account = accountId.toString();
        long seen = signals.watch(account);
        try {
            while (true) {
                var balance = queries.balance(accountId);
                if (balance.isPresent() && balance.get().version() >= minVersion) {
                    return balance.get();
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
                seen = signals.awaitCommitAfter(account, seen, Math.min(remainingMillis, PEER_POLL_MILLIS));
            }
        } finally {
            signals.unwatch(account);
        }
    }
}
