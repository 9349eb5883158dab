package dev.ledgerlab.lab;

import dev.ledgerlab.infra.EmbeddedPostgres;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code ./ledger-lab break kill postgres} and {@code restart postgres}: the outage of OutageProofTest, on the lab's
 * own PostgreSQL. A kill is a {@code SIGKILL} of the postmaster, its server processes gone with it; nothing is flushed,
 * so what survives is what was durable (the lab runs with fsync and synchronous_commit on). The lab supervises its
 * services, not its database: PostgreSQL stays down until {@code restart postgres} starts it again on its data
 * directory (crash recovery), and the services resume by themselves.
 */
final class PostgresFaults {

    static final String TARGET = "postgres";

    private PostgresFaults() {
    }

    /** Does {@code fault} to the lab's PostgreSQL, or says why not (freeze and thaw are not among its faults). */
    static Map<String, Object> fault(ServiceProcesses.Fault fault, EmbeddedPostgres postgres) {
        var answer = new LinkedHashMap<String, Object>();
        answer.put("service", TARGET);
        answer.put("fault", fault.name().toLowerCase(java.util.Locale.ROOT));
        long before = postgres.pid();
        answer.put("pid", before);
        switch (fault) {
            case KILL -> {
                if (!postgres.isRunning()) {
                    answer.put("did", "nothing: PostgreSQL is down already; ./ledger-lab break restart postgres starts"
                            + " it again");
                    answer.put("watch", "the command API's 503s, every service's readiness 503");
                    return answer;
                }
                postgres.kill();
                answer.put("did", "SIGKILL: PostgreSQL's postmaster (pid %d) and its server processes are gone; it"
                        .formatted(before) + " stays down until ./ledger-lab break restart postgres");
                answer.put("watch", "commands answer 503 database-unavailable with Retry-After, and nothing of them is"
                        + " written; every service's /actuator/health/readiness answers 503; the relay and the"
                        + " projectors wait and retry, nothing is dead-lettered or skipped");
            }
            case RESTART -> {
                if (postgres.isRunning()) {
                    answer.put("did", "nothing: PostgreSQL (pid %d) is running; restart starts it after a kill"
                            .formatted(before));
                    answer.put("watch", "./ledger-lab break kill postgres first");
                    return answer;
                }
                postgres.restart();
                answer.put("pid", postgres.pid());
                answer.put("did", "PostgreSQL started again (pid %d) on its data directory: crash recovery replayed"
                        .formatted(postgres.pid()) + " its WAL, so every command answered 200 is there");
                answer.put("watch", "commands are accepted again; the services are ready again without a restart,"
                        + " the relay publishes from the slot where it stopped and the lag falls");
            }
            default -> throw new IllegalArgumentException("PostgreSQL's faults are kill and restart, not "
                    + fault.name().toLowerCase(java.util.Locale.ROOT));
        }
        return answer;
    }
}
