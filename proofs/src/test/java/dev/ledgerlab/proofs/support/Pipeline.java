package dev.ledgerlab.proofs.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.commandapi.CommandApiApplication;
import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.projector.ProjectorApplication;
import dev.ledgerlab.relay.OutboxRelayApplication;
import dev.ledgerlab.testkit.Infrastructure;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.core.ConditionTimeoutException;
import tools.jackson.databind.JsonNode;

/**
 * The services of one pipeline as processes against one PostgreSQL database and one Kafka cluster, and what
 * the proofs ask of them: commands over HTTP, "is it quiet yet", the invariant checker, the topic's records.
 */
public final class Pipeline implements AutoCloseable {

    private final Infrastructure infrastructure;
    private final List<String> extraArgs;
    private final List<ServiceProcess> started = new ArrayList<>();

    public Pipeline(Infrastructure infrastructure, String... extraArgs) {
        this.infrastructure = infrastructure;
        this.extraArgs = List.of(extraArgs);
    }

    public Infrastructure infrastructure() {
        return infrastructure;
    }

    private List<String> args(String... more) {
        var args = new ArrayList<>(List.of(
                "--spring.datasource.url=" + infrastructure.jdbcUrl(),
                "--spring.datasource.username=" + infrastructure.username(),
                "--spring.datasource.password=" + infrastructure.password(),
                "--spring.kafka.bootstrap-servers=" + infrastructure.bootstrapServers()));
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

    public ServiceProcess projector(String... more) {
        return track(ServiceProcess.start("projector", ProjectorApplication.class, args(more)));
    }

    private ServiceProcess track(ServiceProcess process) {
        started.add(process);
        return process;
    }

    public static UUID openAccount(ServiceProcess commandApi) {
        var response = Http.post(commandApi.port(), "/accounts", "{\"owner\":\"proof\"}");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        return UUID.fromString(response.json().get("accountId").asString());
    }

    /** Opens {@code n} accounts through the command API. */
    public static List<UUID> openAccounts(ServiceProcess commandApi, int n) {
        var accounts = new ArrayList<UUID>();
        for (int i = 0; i < n; i++) {
            accounts.add(openAccount(commandApi));
        }
        return accounts;
    }

    public static Http.Response deposit(ServiceProcess commandApi, UUID account, long amount) {
        return Http.post(commandApi.port(), "/accounts/" + account + "/deposits", "{\"amount\":" + amount + "}");
    }

    public static Http.Response withdraw(ServiceProcess commandApi, UUID account, long amount) {
        return Http.post(commandApi.port(), "/accounts/" + account + "/withdrawals", "{\"amount\":" + amount + "}");
    }

    public static JsonNode status(ServiceProcess projector) {
        return Http.get(projector.port(), "/projection/status").json();
    }

    /**
     * Waits until every account's projected version equals its write-side version and nothing is parked: nothing
     * is in flight between ledger.events and projection.balances any more.
     */
    public void awaitQuiet(Duration timeout) {
        try {
            await().atMost(timeout).pollInterval(Duration.ofMillis(250)).until(() -> behind() == 0);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("the pipeline did not go quiet within " + timeout + ":\n" + whyNotQuiet(), e);
        }
    }

    /** What keeps the pipeline from being quiet: accounts behind, parked accounts, and the stored offsets. */
    public String whyNotQuiet() {
        var report = new StringBuilder();
        try (var connection = DriverManager.getConnection(infrastructure.jdbcUrl(), infrastructure.username(),
                infrastructure.password());
                var statement = connection.createStatement()) {
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

    public long queryLong(String sql) throws SQLException {
        try (var connection = DriverManager.getConnection(infrastructure.jdbcUrl(), infrastructure.username(),
                infrastructure.password());
                var statement = connection.createStatement();
                var rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    public void execute(String sql) throws SQLException {
        try (var connection = DriverManager.getConnection(infrastructure.jdbcUrl(), infrastructure.username(),
                infrastructure.password());
                var statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** Runs the invariant checker and asserts it found nothing; returns its report. */
    public static JsonNode assertInvariantsHold(ServiceProcess projector) {
        var report = Http.get(projector.port(), "/projection/invariants").json();
        assertThat(report.get("violations").size()).as("violations: %s", report.get("violations")).isZero();
        assertThat(report.get("ok").asBoolean()).isTrue();
        assertThat(report.get("eventsApplied").asLong()).isEqualTo(report.get("eventsStored").asLong());
        return report;
    }

    /** What the topic holds for these accounts: records, and distinct event ids among them. */
    public record TopicCount(long records, long distinctEvents) {
        public long duplicates() {
            return records - distinctEvents;
        }
    }

    public TopicCount countTopic(String topic, Set<UUID> accounts) {
        var keys = new HashSet<String>();
        accounts.forEach(a -> keys.add(a.toString()));
        var props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infrastructure.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "proof-reader-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        long[] records = {0};
        var ids = new HashSet<UUID>();
        try (var consumer = new KafkaConsumer<String, String>(props)) {
            consumer.subscribe(List.of(topic));
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                for (var record : consumer.poll(Duration.ofMillis(200))) {
                    if (keys.contains(record.key())) {
                        records[0]++;
                        ids.add(EventCodec.fromJson(record.value()).eventId());
                    }
                }
                var assignment = consumer.assignment();
                if (assignment.isEmpty()) {
                    return false;
                }
                var ends = consumer.endOffsets(assignment);
                return assignment.stream().allMatch(tp -> consumer.position(tp) >= ends.get(tp));
            });
        }
        return new TopicCount(records[0], ids.size());
    }

    /** Stops every process this pipeline started that is still alive. */
    @Override
    public void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }
}
