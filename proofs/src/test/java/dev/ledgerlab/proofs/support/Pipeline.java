package dev.ledgerlab.proofs.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.ledgerlab.commandapi.CommandApiApplication;
import dev.ledgerlab.projector.ProjectorApplication;
import dev.ledgerlab.relay.OutboxRelayApplication;
import dev.ledgerlab.testkit.Infrastructure;
import dev.ledgerlab.testkit.PipelineNames;
import dev.ledgerlab.testkit.ProjectorClient;
import dev.ledgerlab.testkit.TestHttp;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.awaitility.core.ConditionTimeoutException;
import tools.jackson.databind.JsonNode;

/**
 * The services of one pipeline as processes, and what the proofs ask of them: commands over HTTP, "is it quiet
 * yet", the checkers, the topic's records. Each pipeline has a database, a topic, a dead-letter topic, a replication
 * slot and consumer groups of its own, all named after it: proofs never see each other's events or counts, pass in
 * any order, and every figure they assert (events, applications, duplicates) is exactly theirs.
 */
public final class Pipeline implements AutoCloseable {

    private final Infrastructure server;
    private final Infrastructure infrastructure;
    private final String name;
    private final PipelineNames names;
    private final List<String> extraArgs;
    /** Appended to by {@link #together}'s threads at once. */
    private final List<ServiceProcess> started = new CopyOnWriteArrayList<>();
    /**
     * The proofs' own queries, polled every 100 ms or so while a proof waits. Each PostgreSQL connection is a process
     * of its own: opening one costs the server and the client about as much CPU as a hundred queries on an open one,
     * and a connection per poll took about a tenth of the two cores. A connection is checked before each use
     * ({@code com.zaxxer.hikari.aliveBypassWindowMs=0}, proofs/pom.xml), so one broken by a PostgreSQL the proof has
     * killed is replaced, as a new connection per query would have been.
     */
    private final HikariDataSource queries;

    private Pipeline(Infrastructure server, PipelineNames names, Infrastructure infrastructure,
            List<String> extraArgs) {
        this.server = server;
        this.name = names.name();
        this.names = names;
        this.extraArgs = extraArgs;
        this.infrastructure = infrastructure;
        var pool = new HikariConfig();
        pool.setPoolName("proof-" + name);
        pool.setJdbcUrl(infrastructure.jdbcUrl());
        pool.setUsername(infrastructure.username());
        pool.setPassword(infrastructure.password());
        // The test thread, an Awaitility poll and a ProgressWatch at once; opened when first asked for.
        pool.setMaximumPoolSize(4);
        pool.setMinimumIdle(0);
        // While PostgreSQL is down a query fails within a second, and the proof's await tries again.
        pool.setConnectionTimeout(1_000);
        pool.setInitializationFailTimeout(-1);
        this.queries = new HikariDataSource(pool);
    }

    /**
     * A pipeline named {@code name} (lower case, digits, underscores) on this PostgreSQL server and Kafka: creates its
     * database; its services create the rest as they start.
     */
    public static Pipeline isolated(Infrastructure server, String name, String... extraArgs) {
        var names = new PipelineNames(name);
        return new Pipeline(server, names, names.createDatabase(server), List.of(extraArgs));
    }

    public Infrastructure infrastructure() {
        return infrastructure;
    }

    public String name() {
        return name;
    }

    public String topic() {
        return names.topic();
    }

    public String deadLetterTopic() {
        return names.deadLetterTopic();
    }

    /** The live consumer group of its projectors. */
    public String group() {
        return names.group();
    }

    private List<String> args(String... more) {
        var args = new ArrayList<>(List.of(
                "--spring.datasource.url=" + infrastructure.jdbcUrl(),
                // The admin user migrates; each service connects as its own role, as in the lab.
                "--spring.flyway.user=" + infrastructure.username(),
                "--spring.flyway.password=" + infrastructure.password(),
                "--spring.kafka.bootstrap-servers=" + infrastructure.bootstrapServers()));
        args.addAll(names.arguments());
        // Debezium's queue spins through the last millisecond of every poll interval, idle or not: at the lab's 5 ms a
        // relay took 18 % of a core doing nothing, at 20 ms 7 % (measured here, C1 as below). The proofs are about
        // what reaches the projection, not how soon, and two dozen relays come and go while they run, beside a
        // second test JVM doing the same.
        args.add("--relay.poll-interval=100ms");
        // A projector that is killed or halts leaves no LeaveGroup: the group waits out its session before the next
        // member gets its partitions, and most proofs kill or halt one and start the next. 6 s is the least the
        // broker accepts (group.min.session.timeout.ms); the lab keeps 10 s, against a member merely starved of CPU
        // for a moment. Heartbeats stay at 1 s, six of them missed before a member is declared dead.
        args.add("--spring.kafka.consumer.properties.session.timeout.ms=6000");
        args.addAll(extraArgs);
        args.addAll(List.of(more));
        return args;
    }

    public ServiceProcess commandApi() {
        return track(ServiceProcess.start("command-api", CommandApiApplication.class, args()));
    }

    public ServiceProcess relay(String... more) {
        return track(ServiceProcess.start("relay", OutboxRelayApplication.class, args(more)));
    }

    /** A relay armed to halt by itself (relay.faults.*): not waited for, it may halt before it reports ready. */
    public ServiceProcess relayUnready(String... more) {
        return track(ServiceProcess.startUnready("relay", OutboxRelayApplication.class, args(more)));
    }

    public ServiceProcess projector(String... more) {
        return track(ServiceProcess.start("projector", ProjectorApplication.class, args(more)));
    }

    /** A projector armed to stop by itself (projector.faults.*): not waited for, it may stop before it is ready. */
    public ServiceProcess projectorUnready(String... more) {
        return track(ServiceProcess.startUnready("projector", ProjectorApplication.class, args(more)));
    }

    /**
     * A projector armed by its fault seam to stop at {@code point} of its {@code batch}-th batch
     * ({@code projector.faults.*}); not waited for.
     */
    public ServiceProcess projectorStoppingAt(String point, int batch, String... more) {
        var args = new ArrayList<>(List.of(more));
        args.add("--projector.faults.halt-at=" + point);
        args.add("--projector.faults.halt-after-batches=" + batch);
        if (point.startsWith("freeze")) {
            return track(ServiceProcess.startFreezable("projector", ProjectorApplication.class,
                    "--projector.faults.release-file", args(args.toArray(String[]::new))));
        }
        return projectorUnready(args.toArray(String[]::new));
    }

    /**
     * A {@code main} of this module's test sources (a simpler design, there to be shown failing) with this pipeline's
     * settings; waited for until ready only if asked.
     */
    public ServiceProcess variant(String name, Class<?> main, boolean awaitReady, String... more) {
        return track(ServiceProcess.startVariant(name, main, args(more), awaitReady));
    }

    /**
     * Starts services side by side, each waited for until ready as its own method does, and returns them in the
     * order given. JVMs started together are ready sooner than one after another, even on two cores: much of a start
     * is waiting (for PostgreSQL, the broker, a consumer group's join). The command API and the relay may start
     * together, as they do in the lab: both migrate the ledger schema, and Flyway's lock (and the roles script's lock
     * on {@code pg_authid}) lets one of them do it while the other waits.
     */
    @SafeVarargs
    public final List<ServiceProcess> together(Supplier<ServiceProcess>... starts) {
        var pool = Executors.newFixedThreadPool(starts.length);
        try {
            var futures = java.util.Arrays.stream(starts).map(start -> CompletableFuture.supplyAsync(start, pool))
                    .toList();
            return futures.stream().map(CompletableFuture::join).toList();
        } finally {
            pool.shutdownNow();
        }
    }

    /** A pipeline's three services, as {@link #startAll} started them. */
    public record Services(ServiceProcess api, ServiceProcess relay, ServiceProcess projector) {
    }

    /** Its command API, relay and projector, started side by side ({@link #together}). */
    public Services startAll() {
        var started = together(this::commandApi, this::relay, this::projector);
        return new Services(started.get(0), started.get(1), started.get(2));
    }

    private ServiceProcess track(ServiceProcess process) {
        started.add(process);
        return process;
    }

    /**
     * Waits until every account's projected version equals its write-side version and nothing is parked: nothing
     * is in flight between ledger.events and projection.balances any more.
     */
    public void awaitQuiet(Duration timeout) {
        try {
            await().atMost(timeout).pollInterval(Duration.ofMillis(250)).ignoreExceptions().until(() -> behind() == 0);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("the pipeline did not go quiet within " + timeout + ":\n" + whyNotQuiet(), e);
        }
    }

    /** What keeps the pipeline from being quiet: accounts behind, parked accounts, and the stored offsets. */
    public String whyNotQuiet() {
        var report = new StringBuilder();
        try (var connection = connect(); var statement = connection.createStatement()) {
            appendRows(report, "accounts behind (account, written version, projected version)",
                    statement.executeQuery("""
                    SELECT a.account_id, a.version, b.version FROM ledger.accounts a
                    LEFT JOIN projection.balances b USING (account_id)
                    WHERE b.version IS DISTINCT FROM a.version ORDER BY a.account_id LIMIT 20"""));
            appendRows(report, "parked accounts", statement.executeQuery("""
                    SELECT account_id, expected_version, received_version, reason, partition, record_offset
                    FROM projection.parked_accounts ORDER BY parked_at LIMIT 20"""));
            appendRows(report, "projection.offsets", statement.executeQuery("""
                    SELECT group_id, topic, partition, next_offset, applied, duplicates, updated_at
                    FROM projection.offsets ORDER BY group_id, topic, partition"""));
        } catch (SQLException e) {
            report.append("(cannot read the database: ").append(e.getMessage()).append(")\n");
        }
        for (var process : started) {
            report.append("--- ").append(process).append(process.isAlive() ? " (alive)" : " (exited)")
                    .append(", last lines:\n").append(process.tail(15)).append('\n');
        }
        return report.toString();
    }

    private static void appendRows(StringBuilder report, String title, java.sql.ResultSet rs) throws SQLException {
        report.append(title).append(":\n");
        int columns = rs.getMetaData().getColumnCount();
        while (rs.next()) {
            report.append("  ");
            for (int i = 1; i <= columns; i++) {
                report.append(i > 1 ? " | " : "").append(rs.getString(i));
            }
            report.append('\n');
        }
        rs.close();
    }

    /** Accounts whose projection is not at their write-side version, plus parked accounts. */
    public long behind() throws SQLException {
        return queryLong("""
                SELECT (SELECT count(*) FROM ledger.accounts a LEFT JOIN projection.balances b USING (account_id)
                        WHERE b.version IS DISTINCT FROM a.version)
                     + (SELECT count(*) FROM projection.parked_accounts)""");
    }

    /** A connection of the pipeline's pool: closing it gives it back. */
    public java.sql.Connection connect() throws SQLException {
        return queries.getConnection();
    }

    public long queryLong(String sql) throws SQLException {
        try (var connection = connect(); var statement = connection.createStatement();
                var rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    public void execute(String sql) throws SQLException {
        try (var connection = connect(); var statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** The applications and duplicates the live group counted, from projection.offsets. */
    public long applied() throws SQLException {
        return queryLong("SELECT coalesce(sum(applied), 0) FROM projection.offsets WHERE group_id = '" + group() + "'");
    }

    public long duplicatesSkipped() throws SQLException {
        return queryLong("SELECT coalesce(sum(duplicates), 0) FROM projection.offsets WHERE group_id = '" + group()
                + "'");
    }

    /**
     * Once the pipeline is quiet: each account's balance on this projector is what the load's clients were told, and
     * the projector's own invariant checker finds nothing.
     */
    public void assertProjectedAsTold(ServiceProcess projector, List<UUID> accounts, Load load) {
        awaitQuiet(Duration.ofSeconds(120));
        for (var account : accounts) {
            var projected = ProjectorClient.at(projector.port()).balance(account).json();
            assertThat(projected.get("balance").asLong()).as("balance of %s on %s", account, projector)
                    .isEqualTo(load.sum(account));
        }
        assertInvariantsHold(projector);
    }

    /** Runs the projector's own invariant checker and asserts it found nothing; returns its report. */
    public static JsonNode assertInvariantsHold(ServiceProcess projector) {
        var report = TestHttp.at(projector.port()).asOperator().get("/projection/invariants").json();
        assertThat(report.get("violations").size()).as("violations: %s", report.get("violations")).isZero();
        assertThat(report.get("ok").asBoolean()).isTrue();
        assertThat(report.get("eventsApplied").asLong()).isEqualTo(report.get("eventsStored").asLong());
        return report;
    }

    /** Stops every process this pipeline started that is still alive, then drops its replication slot. */
    @Override
    public void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
        queries.close();
        // Slots belong to the whole server (ten at most) and keep WAL for as long as they exist.
        try (var connection = DriverManager.getConnection(server.jdbcUrl(), server.username(), server.password());
                var statement = connection.createStatement()) {
            statement.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                    + " WHERE slot_name = '" + name + "' AND NOT active");
        } catch (SQLException e) {
            System.err.println("could not drop replication slot " + name + ": " + e.getMessage());
        }
    }
}
