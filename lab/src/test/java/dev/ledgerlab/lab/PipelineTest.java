package dev.ledgerlab.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.relay.OutboxRelayApplication;
import dev.ledgerlab.testkit.CommandApiClient;
import dev.ledgerlab.testkit.ProjectorClient;
import dev.ledgerlab.testkit.TestHttp;
import dev.ledgerlab.testkit.TestInfrastructure;
import dev.ledgerlab.testkit.TopicReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The whole pipeline in one JVM: REST command -> PostgreSQL (events = outbox) -> WAL -> Debezium relay -> Kafka
 * -> projector -> projection.balances, against the real PostgreSQL and Kafka of this test JVM.
 */
class PipelineTest {

    private static final String TOPIC = "accounts.events";

    private static LabServices.Infrastructure infrastructure;
    private static LabServices services;
    private static org.springframework.context.ConfigurableApplicationContext replacementRelay;
    private static OtlpReceiver traces;

    @BeforeAll
    static void startServices() {
        var infra = TestInfrastructure.get();
        infrastructure = new LabServices.Infrastructure(infra.jdbcUrl(), infra.username(), infra.password(),
                infra.bootstrapServers());
        traces = new OtlpReceiver();
        services = LabServices.start(infrastructure, new LabServices.Ports(0, 0, 0),
                List.of(TestHttp.OPERATOR_PASSWORD_ARGUMENT,
                        "--management.opentelemetry.tracing.export.otlp.endpoint=" + traces.endpoint(),
                        "--management.opentelemetry.tracing.export.schedule-delay=200ms"));
    }

    @AfterAll
    static void stopServices() {
        if (replacementRelay != null) {
            replacementRelay.close();
        }
        services.close();
        traces.close();
    }

    /**
     * A deposit's trace, through the real relay and Kafka: the command API answers with the traceparent of the
     * request's server span (it made the trace: the client sent none), stores that context with the event, the relay
     * carries it in a Kafka header, and the projector's span for applying that event is a child of that very span, as
     * exported by both services over OTLP. A client that sends its own traceparent gets its trace continued.
     */
    @Test
    void continuesTheTraceOfADepositOnTheProjectorsSpanForItsEvent() {
        var account = commands().openAccount("pipeline");
        var started = TestHttp.at(commandApiPort()).post("/accounts/" + account + "/deposits", "{\"amount\":7}");
        assertThat(started.status()).as(started.body()).isEqualTo(200);
        assertThat(started.header("traceparent")).as("the response's traceparent")
                .matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01");
        var clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
        var continued = TestHttp.at(commandApiPort()).post("/accounts/" + account + "/deposits", "{\"amount\":8}",
                "traceparent", "00-" + clientTrace + "-00f067aa0ba902b7-01");
        assertThat(continued.header("traceparent")).as("the client's trace, continued").contains(clientTrace);

        for (var response : List.of(started, continued)) {
            var traceId = response.header("traceparent").split("-")[1];
            var serverSpan = response.header("traceparent").split("-")[2];
            var applied = await().atMost(Duration.ofSeconds(60)).until(() -> traces.spans().stream()
                    .filter(span -> span.service().equals("projector") && span.traceId().equals(traceId)
                            && span.name().equals("ledger.projection.apply"))
                    .findFirst(), java.util.Optional::isPresent).orElseThrow();
            assertThat(applied.attributes()).containsEntry("ledger.account", account.toString());
            assertThat(applied.parentSpanId()).as("the projector's span continues the request's").isEqualTo(serverSpan);
            var parent = await().atMost(Duration.ofSeconds(30)).until(() -> traces.spans().stream()
                    .filter(span -> span.spanId().equals(serverSpan)).findFirst(), java.util.Optional::isPresent)
                    .orElseThrow();
            assertThat(parent.service()).as("the server span's service").isEqualTo("command-api");
            assertThat(parent.traceId()).isEqualTo(traceId);
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(queries().projected(account)).containsExactly(15L, 3L));
    }

    /**
     * Each service connects as a role of its own (created by Flyway, db/roles) with only what it needs, and the
     * running lab really uses them: every pooled connection of a service (pg_stat_activity names the service) and
     * the relay's replication stream are its role's, never the admin user's (whose only use is to migrate). Then
     * each role is tried on what it must not do: the projector's cannot append to or change the ledger, the command
     * API's cannot read the projection, the relay's cannot write an event or read the projection. PostgreSQL answers
     * 42501 (insufficient_privilege).
     */
    @Test
    void connectsEachServiceAsARoleOfItsOwnAndTheProjectorsRoleCannotWriteTheLedger() throws Exception {
        // every service has touched the database by now
        commands().deposit(commands().openAccount("pipeline"), 1).expect(200);
        var roles = java.util.Map.of("command-api", "ledger_command_api", "projector", "ledger_projector",
                "outbox-relay", "ledger_relay");
        try (var admin = java.sql.DriverManager.getConnection(infrastructure.jdbcUrl(), infrastructure.username(),
                infrastructure.password())) {
            var seen = new HashMap<String, java.util.Set<String>>();
            try (var statement = admin.prepareStatement("SELECT application_name, usename FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND application_name = ANY (?)")) {
                statement.setArray(1, admin.createArrayOf("text", roles.keySet().toArray()));
                try (var rows = statement.executeQuery()) {
                    while (rows.next()) {
                        seen.computeIfAbsent(rows.getString(1), k -> new HashSet<>()).add(rows.getString(2));
                    }
                }
            }
            // The relay's pool serves only its readiness check and may hold no connection; its stream is below.
            assertThat(seen).containsKeys("command-api", "projector");
            seen.forEach((service, used) -> assertThat(used).as("the roles of %s's connections", service)
                    .containsExactly(roles.get(service)));
            // Awaited: another test of this class replaces the relay, and the slot waits for the new one.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                try (var statement = admin.createStatement(); var rows = statement.executeQuery("SELECT r.usename"
                        + " FROM pg_replication_slots s JOIN pg_stat_replication r ON r.pid = s.active_pid"
                        + " WHERE s.slot_name = 'ledger_outbox'")) {
                    assertThat(rows.next()).as("the relay streams its slot").isTrue();
                    assertThat(rows.getString(1)).isEqualTo("ledger_relay");
                }
            });
        }

        var anEvent = "INSERT INTO ledger.events (id, account_id, version, type, payload, occurred_at)"
                + " SELECT gen_random_uuid(), account_id, version + 1000000, 'MoneyDeposited', '{}', now()"
                + " FROM ledger.events LIMIT 1";
        assertRefused("ledger_projector", anEvent);
        assertRefused("ledger_projector", "UPDATE ledger.accounts SET balance = balance + 1");
        assertRefused("ledger_projector", "DELETE FROM ledger.idempotency_keys");
        assertRefused("ledger_command_api", "SELECT count(*) FROM projection.balances");
        assertRefused("ledger_command_api", "DELETE FROM ledger.relay_offsets");
        assertRefused("ledger_relay", anEvent);
        assertRefused("ledger_relay", "SELECT count(*) FROM projection.balances");
    }

    /** The statement, run as the role, fails for want of a privilege (and so changes nothing). */
    private static void assertRefused(String role, String sql) throws java.sql.SQLException {
        // The embedded server trusts loopback connections: any password logs the role in.
        try (var connection = java.sql.DriverManager.getConnection(infrastructure.jdbcUrl(), role, "unused");
                var statement = connection.createStatement()) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> statement.execute(sql)).as("%s: %s", role, sql)
                    .isInstanceOfSatisfying(java.sql.SQLException.class,
                            e -> assertThat(e.getSQLState()).as(e.getMessage()).isEqualTo("42501"));
        }
    }

    @Test
    void carriesDepositsFromTheApiThroughTheWalAndKafkaIntoTheProjection() {
        var random = new Random(seed("carriesDeposits"));
        var expected = new HashMap<UUID, Long>();
        for (int a = 0; a < 10; a++) {
            var account = commands().openAccount("pipeline");
            long sum = 0;
            for (int d = 0; d < 5; d++) {
                long amount = 1 + random.nextInt(100_000);
                assertThat(commands().deposit(account, amount).expect(200).json().get("balance").asLong())
                        .isEqualTo(sum + amount);
                sum += amount;
            }
            expected.put(account, sum);
        }

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> expected.forEach((account, sum) ->
                assertThat(queries().projected(account)).as("projected %s", account).isEqualTo(new long[] {sum, 6})));

        var records = readTopic(expected.keySet());
        var partitionOf = new HashMap<String, Integer>();
        var versions = new HashMap<String, List<Long>>();
        for (var record : records) {
            assertThat(partitionOf.computeIfAbsent(record.key(), k -> record.partition()))
                    .as("every event of account %s in one partition", record.key()).isEqualTo(record.partition());
            var envelope = EventCodec.fromJson(record.value());
            assertThat(envelope.accountId().toString()).isEqualTo(record.key());
            versions.computeIfAbsent(record.key(), k -> new ArrayList<>()).add(envelope.version());
        }
        assertThat(versions).hasSize(expected.size());
        versions.values().forEach(v -> assertThat(v).containsExactly(1L, 2L, 3L, 4L, 5L, 6L));
    }

    @Test
    void readsItsOwnWriteRightAfterTheCommandThatProducedIt() {
        var account = commands().openAccount("pipeline");
        var latencies = new ArrayList<Long>();
        for (int i = 1; i <= 20; i++) {
            var moved = commands().deposit(account, i).expect(200).json();
            long version = moved.get("version").asLong();
            long started = System.nanoTime();
            var read = queries().balance(account, version);
            latencies.add((System.nanoTime() - started) / 1_000_000);

            assertThat(read.status()).as(read.body()).isEqualTo(200);
            var body = read.json();
            assertThat(body.get("version").asLong()).isGreaterThanOrEqualTo(version);
            assertThat(body.get("balance").asLong()).isEqualTo(moved.get("balance").asLong());
        }
        latencies.sort(null);
        System.out.printf("read-your-writes wait after a deposit: median %d ms, worst %d ms of %d%n",
                latencies.get(latencies.size() / 2), latencies.get(latencies.size() - 1), latencies.size());
    }

    /**
     * What the pipeline page reads, against the pipeline itself: an event's journey names the outbox position the
     * event has in ledger.events and the partition and offset where Kafka holds it; a reading shows the outbox head,
     * the relay's slot and every partition; a bad path gets its problem type.
     */
    @Test
    void tracesAnEventToItsOutboxPositionAndItsKafkaPartitionAndOffset() throws Exception {
        var account = commands().openAccount("pipeline");
        var moved = commands().deposit(account, 42).expect(200).json();
        long version = moved.get("version").asLong();
        var path = "/pipeline/events/" + account + "/" + version;
        var journey = await().atMost(Duration.ofSeconds(60)).until(() -> get(projectorPort(), path).json(),
                j -> !j.get("published").isNull() && !j.get("applied").isNull());
        long position;
        try (var admin = java.sql.DriverManager.getConnection(infrastructure.jdbcUrl(), infrastructure.username(),
                infrastructure.password()); var statement = admin.prepareStatement(
                        "SELECT position FROM ledger.events WHERE account_id = ? AND version = ?")) {
            statement.setObject(1, account);
            statement.setLong(2, version);
            try (var rows = statement.executeQuery()) {
                assertThat(rows.next()).isTrue();
                position = rows.getLong(1);
            }
        }
        assertThat(journey.get("committed").get("position").asLong()).isEqualTo(position);
        assertThat(journey.get("committed").get("eventId").asString()).isEqualTo(moved.get("eventId").asString());
        var record = readTopic(java.util.Set.of(account)).stream()
                .filter(r -> EventCodec.fromJson(r.value()).version() == version).findFirst().orElseThrow();
        assertThat(journey.get("published").get("partition").asInt()).isEqualTo(record.partition());
        assertThat(journey.get("published").get("offset").asLong()).isEqualTo(record.offset());
        assertThat(java.time.Instant.parse(journey.get("published").get("at").asString()))
                .isEqualTo(java.time.Instant.ofEpochMilli(record.timestamp()));
        assertThat(journey.get("applied").get("balance").asLong()).isEqualTo(42);

        var first = get(projectorPort(), "/pipeline").json().get("samples");
        var last = first.get(first.size() - 1);
        assertThat(last.get("outboxHead").asLong()).isGreaterThanOrEqualTo(position);
        assertThat(last.get("partitions").size()).isEqualTo(6);
        assertThat(last.get("errors").size()).as(last.toString()).isZero();
        assertThat(last.get("slots").toString()).contains("\"name\":\"ledger_outbox\"");
        var later = await().atMost(Duration.ofSeconds(10)).until(() -> get(projectorPort(),
                "/pipeline?after=" + last.get("at").asString()).json().get("samples"), samples -> !samples.isEmpty());
        assertThat(java.time.Instant.parse(later.get(0).get("at").asString()))
                .isAfter(java.time.Instant.parse(last.get("at").asString()));
        assertThat(later.get(0).get("rates").isNull()).as("a rate against the reading before").isFalse();

        assertThat(get(projectorPort(), "/pipeline/events/" + account + "/0").problemType())
                .isEqualTo("urn:ledgerlab:problem:invalid-version");
        assertThat(get(projectorPort(), "/pipeline/events/" + account + "/99").problemType())
                .isEqualTo("urn:ledgerlab:problem:event-not-found");
        assertThat(get(projectorPort(), "/pipeline/events/not-a-uuid/1").problemType())
                .isEqualTo("urn:ledgerlab:problem:invalid-account-id");
    }

    @Test
    void losesNoEventWhenTheRelayIsRestartedMidStream() throws Exception {
        var random = new Random(seed("relayRestart"));
        var accounts = new ArrayList<UUID>();
        for (int i = 0; i < 5; i++) {
            accounts.add(commands().openAccount("pipeline"));
        }
        var sums = new HashMap<UUID, Long>();
        var done = new AtomicInteger();
        int total = 300;
        var writer = Executors.newSingleThreadExecutor();
        var load = writer.submit(() -> {
            for (int i = 0; i < total; i++) {
                var account = accounts.get(random.nextInt(accounts.size()));
                long amount = 1 + random.nextInt(1_000);
                commands().deposit(account, amount).expect(200);
                sums.merge(account, amount, Long::sum);
                done.incrementAndGet();
            }
            return null;
        });
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> done.get() >= total / 3);
            services.relay().close();
            int stoppedAt = done.get();
            await().atMost(Duration.ofSeconds(60)).until(() -> done.get() >= stoppedAt + total / 3);
            replacementRelay = LabServices.run(OutboxRelayApplication.class, OutboxRelayApplication.CONFIG_NAME,
                    infrastructure, 0, List.of());
            load.get(120, TimeUnit.SECONDS);
        } finally {
            writer.shutdownNow();
        }

        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> sums.forEach((account, sum) ->
                assertThat(queries().projected(account)[0]).as("projected balance of %s", account).isEqualTo(sum)));
        var records = readTopic(new HashSet<>(accounts));
        var eventIds = new HashSet<String>();
        records.forEach(r -> eventIds.add(EventCodec.fromJson(r.value()).eventId().toString()));
        long events = accounts.size() + total;
        assertThat(eventIds).as("every event reached Kafka").hasSize((int) events);
        System.out.printf("relay restart: %d events, %d records in Kafka, %d duplicates%n", events, records.size(),
                records.size() - eventIds.size());
    }

    /**
     * The log is kept forever, so a replay from offset zero meets every schema version ever written. Here each
     * account's history is written by three versions of the writer in deploy order: version 1 (amount) and version
     * 2 (amount and amountMinor) as those writers committed them, the event row and the account row in one
     * transaction, then version 3 (amountMinor) by today's command API. Live, after an in-place replay and after a
     * shadow rebuild, every balance is the fold of the amounts written.
     */
    @Test
    void replaysALogWrittenByThreeVersionsOfTheWriterToTheBalancesOfTheFold() throws Exception {
        var random = new Random(seed("threeWriters"));
        var expected = new HashMap<UUID, long[]>();
        try (var connection = java.sql.DriverManager.getConnection(infrastructure.jdbcUrl(),
                infrastructure.username(), infrastructure.password())) {
            for (int a = 0; a < 12; a++) {
                var account = commands().openAccount("pipeline");
                long balance = 0;
                long version = 1;
                for (int schemaVersion = 1; schemaVersion <= 3; schemaVersion++) {
                    for (int e = 0; e < 3; e++) {
                        long amount = 1 + random.nextInt(10_000);
                        boolean withdraw = balance >= amount && random.nextBoolean();
                        balance += withdraw ? -amount : amount;
                        version++;
                        if (schemaVersion == 3) {
                            var moved = post(commandApiPort(), "/accounts/" + account + (withdraw ? "/withdrawals"
                                    : "/deposits"), "{\"amount\":" + amount + "}");
                            assertThat(moved.status()).as(moved.body()).isEqualTo(200);
                        } else {
                            writeAsPastWriter(connection, schemaVersion, new dev.ledgerlab.events.EventEnvelope(
                                    UUID.randomUUID(), account, version, java.time.Instant.now().truncatedTo(
                                            java.time.temporal.ChronoUnit.MICROS), withdraw
                                            ? new dev.ledgerlab.events.MoneyWithdrawn(amount)
                                            : new dev.ledgerlab.events.MoneyDeposited(amount)), balance);
                        }
                    }
                }
                expected.put(account, new long[] {balance, version});
            }
        }
        awaitProjected(expected);

        var records = readTopic(expected.keySet());
        var schemaVersions = new java.util.TreeSet<String>();
        var json = tools.jackson.databind.json.JsonMapper.builder().build();
        for (var record : records) {
            var payload = json.readTree(record.value());
            var written = payload.has("schemaVersion") ? payload.get("schemaVersion").asString() : "1";
            assertThat(TopicReader.header(record, "schemaVersion")).as("the header says the payload's version")
                    .isEqualTo(written);
            assertThat(TopicReader.header(record, "eventType")).isEqualTo(payload.get("event").get("type").asString());
            schemaVersions.add(written);
        }
        assertThat(schemaVersions).containsExactly("1", "2", "3");

        var replay = post(projectorPort(), "/projection/replay", "{}");
        assertThat(replay.status()).as(replay.body()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(120)).until(() -> "completed".equals(
                get(projectorPort(), "/projection/replay").json().get("state").asString()));
        awaitProjected(expected);
        var invariants = get(projectorPort(), "/projection/invariants").json();
        assertThat(invariants.get("violations").size()).as("violations: %s", invariants.get("violations")).isZero();

        var rebuild = post(projectorPort(), "/projection/rebuild", "{}");
        assertThat(rebuild.status()).as(rebuild.body()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(120)).until(() -> "completed".equals(
                get(projectorPort(), "/projection/rebuild").json().get("state").asString()));
        expected.forEach((account, balance) ->
                assertThat(queries().projected(account)).as("rebuilt %s", account).containsExactly(balance));
        System.out.printf("three writers: %d accounts, %d records of schema versions %s; replayed and rebuilt exact%n",
                expected.size(), records.size(), schemaVersions);
    }

    /**
     * One command as the writer of that schema version committed it: lock the account, append the event, move the
     * account, in one transaction. Version 1 wrote no schema_version (the column did not exist; its default is 1).
     */
    private static void writeAsPastWriter(java.sql.Connection connection, int schemaVersion,
            dev.ledgerlab.events.EventEnvelope event, long balanceAfter) throws java.sql.SQLException {
        connection.setAutoCommit(false);
        try (var lock = connection.prepareStatement(
                        "SELECT version FROM ledger.accounts WHERE account_id = ? FOR UPDATE");
                var append = connection.prepareStatement(schemaVersion == 1
                        ? "INSERT INTO ledger.events (id, account_id, version, type, payload, occurred_at)"
                                + " VALUES (?, ?, ?, ?, ?::jsonb, ?)"
                        : "INSERT INTO ledger.events (id, account_id, version, type, payload, occurred_at,"
                                + " schema_version) VALUES (?, ?, ?, ?, ?::jsonb, ?, " + schemaVersion + ")");
                var move = connection.prepareStatement("UPDATE ledger.accounts SET balance = ?, version = ?,"
                        + " updated_at = now() WHERE account_id = ? AND version = ?")) {
            lock.setObject(1, event.accountId());
            try (var rs = lock.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(event.version() - 1);
            }
            append.setObject(1, event.eventId());
            append.setObject(2, event.accountId());
            append.setLong(3, event.version());
            append.setString(4, event.event().type());
            append.setString(5, dev.ledgerlab.testkit.PastSchemaVersions.json(event, schemaVersion));
            append.setTimestamp(6, java.sql.Timestamp.from(event.occurredAt()));
            append.executeUpdate();
            move.setLong(1, balanceAfter);
            move.setLong(2, event.version());
            move.setObject(3, event.accountId());
            move.setLong(4, event.version() - 1);
            assertThat(move.executeUpdate()).isEqualTo(1);
            connection.commit();
        } catch (java.sql.SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        }
    }

    private static void awaitProjected(java.util.Map<UUID, long[]> expected) {
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> expected.forEach((account, state) ->
                assertThat(queries().projected(account)).as("projected %s", account).containsExactly(state)));
    }

    private static long seed(String name) {
        long seed = System.nanoTime();
        System.out.println("PipelineTest." + name + " seed=" + seed);
        return seed;
    }

    private static int commandApiPort() {
        return LabServices.port(services.commandApi());
    }

    private static int projectorPort() {
        return LabServices.port(services.projector());
    }

    private static CommandApiClient commands() {
        return CommandApiClient.over(TestHttp.at(commandApiPort()).asOperator());
    }

    private static ProjectorClient queries() {
        return ProjectorClient.over(TestHttp.at(projectorPort()).asOperator());
    }

    /** Every record of these accounts in the topic, read from offset zero by a plain consumer. */
    private static List<ConsumerRecord<String, String>> readTopic(java.util.Set<UUID> accounts) {
        var keys = new HashSet<String>();
        accounts.forEach(a -> keys.add(a.toString()));
        return TopicReader.readAll(infrastructure.bootstrapServers(), TOPIC).stream()
                .filter(record -> keys.contains(record.key())).toList();
    }

    /** As the operator: the credentials change nothing on the open calls. */
    private static TestHttp.Response post(int port, String path, String json) {
        return TestHttp.at(port).asOperator().post(path, json);
    }

    private static TestHttp.Response get(int port, String path) {
        return TestHttp.at(port).asOperator().get(path);
    }
}
