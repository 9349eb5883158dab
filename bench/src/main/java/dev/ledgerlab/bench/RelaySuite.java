package dev.ledgerlab.bench;

import dev.ledgerlab.infra.EmbeddedStack;
import dev.ledgerlab.infra.JavaCommand;
import dev.ledgerlab.relay.OutboxRelayApplication;
import dev.ledgerlab.relay.RelayProperties;
import dev.ledgerlab.relay.kafka.OutboxProducer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The relay's backlog drain: events committed one per transaction, as the command API writes them, while the relay is
 * stopped; then the rate at which a relay process publishes them, its start apart from its steady rate (from the 10th
 * to the 90th percent of the backlog). Baselines from the same run, on the same backlog: a bare Debezium engine on the
 * same table and slot type that only counts ({@link BareEngineMain}, a process too), and a bare Kafka producer sending
 * the same records with the relay's producer settings.
 */
final class RelaySuite {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private final BenchOptions options;
    private final Report report;
    private final Path work;

    RelaySuite(BenchOptions options, Report report, Path work) {
        this.options = options;
        this.report = report;
        this.work = work;
    }

    /** Wall-clock times of one drain: the process's start, its first, 10 %, 90 % and last event. */
    private record Drain(long spawned, long first, long at10, long at90, long last) {
        double steadyPerSecond(int events) {
            return 0.8 * events / ((at90 - at10) / 1000.0);
        }

        double startupSeconds() {
            return (first - spawned) / 1000.0;
        }

        double wholePerSecond(int events) {
            return events / ((last - spawned) / 1000.0);
        }
    }

    void run() throws Exception {
        var base = work.resolve("relay-" + UUID.randomUUID().toString().substring(0, 8));
        var settings = EmbeddedStack.Settings.under(base).withFreePorts().withFresh(true)
                .withPostgresSetting("fsync", options.fsync() ? "on" : "off")
                .withPostgresSetting("synchronous_commit", options.fsync() ? "on" : "off");
        try (var stack = EmbeddedStack.start(settings)) {
            var jdbcUrl = stack.postgres().jdbcUrl();
            var bootstrap = stack.kafka().bootstrapServers();
            int relayPort = EmbeddedStack.freePort();
            // The first relay migrates the schema, creates the topic and its slot, and publishes the accounts.
            try (var relay = relay(jdbcUrl, bootstrap, relayPort, base)) {
                awaitPublished(relayPort, 0, Duration.ofMinutes(2));
            }
            var accounts = JdbcCommands.openAccounts(jdbcUrl, 1000);
            try (var relay = relay(jdbcUrl, bootstrap, relayPort, base)) {
                awaitPublished(relayPort, accounts.size(), Duration.ofMinutes(2));
            }
            var bareOffsets = base.resolve("bare.offsets");
            try (var bare = bare(stack, bareOffsets, 0, base)) {
                bare.awaitLine(BareEngineMain.STREAMING, Duration.ofMinutes(2));
            }
            createTopic(bootstrap, "bench.bare");

            int events = options.scale().relayBacklog();
            var relayRates = new ArrayList<Double>();
            var relayStarts = new ArrayList<Double>();
            var bareRates = new ArrayList<Double>();
            var bareStarts = new ArrayList<Double>();
            var producerRates = new ArrayList<Double>();
            var writeRates = new ArrayList<Double>();
            for (int run = 0; run < options.repetitions(); run++) {
                long positionBefore = maxPosition(jdbcUrl);
                writeRates.add(ClosedLoop.runCount(8, index -> JdbcCommands.depositClient(jdbcUrl, accounts, index),
                        events));

                var relayDrain = relayDrain(jdbcUrl, bootstrap, relayPort, base, events);
                relayRates.add(relayDrain.steadyPerSecond(events));
                relayStarts.add(relayDrain.startupSeconds());

                Drain bareDrain;
                try (var bare = bare(stack, bareOffsets, events, base)) {
                    var marks = bare.awaitLine(BareEngineMain.MARKS, Duration.ofMinutes(10)).substring(
                            BareEngineMain.MARKS.length()).trim().split(" ");
                    bareDrain = new Drain(bare.spawnedEpochMillis(), Long.parseLong(marks[0]), Long.parseLong(marks[1]),
                            Long.parseLong(marks[2]), Long.parseLong(marks[3]));
                }
                bareRates.add(bareDrain.steadyPerSecond(events));
                bareStarts.add(bareDrain.startupSeconds());
                producerRates.add(bareProducer(jdbcUrl, bootstrap, positionBefore));
                System.out.printf("relay drain %d: %,d events written at %,.0f/s; relay %,.0f/s steady (start %.1f s),"
                        + " bare Debezium %,.0f/s (start %.1f s), bare producer %,.0f/s%n", run + 1, events,
                        writeRates.get(run), relayRates.get(run), relayStarts.get(run), bareRates.get(run),
                        bareStarts.get(run), producerRates.get(run));
            }
            report.put("relay.events", events).put("relay.rate", Stats.median(relayRates))
                    .put("relay.rates", relayRates).put("relay.startup_s", Stats.median(relayStarts))
                    .put("relay.bare_debezium_rate", Stats.median(bareRates)).put("relay.bare_debezium_rates", bareRates)
                    .put("relay.bare_debezium_startup_s", Stats.median(bareStarts))
                    .put("relay.bare_producer_rate", Stats.median(producerRates))
                    .put("relay.bare_producer_rates", producerRates)
                    .put("relay.ratio", Stats.median(relayRates) / Stats.median(bareRates))
                    .put("relay.ratio_to_producer", Stats.median(relayRates) / Stats.median(producerRates))
                    .put("relay.backlog_write_rate", Stats.median(writeRates));
        }
        finally {
            EmbeddedStack.deleteIfAbandoned(base);
        }
    }

    private Drain relayDrain(String jdbcUrl, String bootstrap, int port, Path base, int events) throws Exception {
        // The drain is counted on the topic, as the bare engine counts itself: asking the relay (its status over
        // HTTP) would make it answer on the same two cores while it drains, a cost the bare engine never pays (at a
        // poll every 100 ms, 7 % of the relay's Java samples in a profile of 2026-12-04, through its whole filter
        // chain). The topic's end offsets are what Kafka acknowledged, one offset per record: the relay's producer is
        // idempotent and not transactional, so no control record takes an offset.
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            var partitions = latestOf(admin, RelayProperties.DEFAULT_TOPIC);
            long before = endOffsets(admin, partitions);
            try (var relay = relay(jdbcUrl, bootstrap, port, base)) {
                long first = 0;
                long at10 = 0;
                long at90 = 0;
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
                while (System.nanoTime() < deadline) {
                    long published = endOffsets(admin, partitions) - before;
                    long now = System.currentTimeMillis();
                    if (published > 0 && first == 0) {
                        first = now;
                    }
                    if (published >= events / 10 && at10 == 0) {
                        at10 = now;
                    }
                    if (published >= events * 9L / 10 && at90 == 0) {
                        at90 = now;
                    }
                    if (published >= events) {
                        return new Drain(relay.spawnedEpochMillis(), first, at10, at90, now);
                    }
                    relay.checkAlive();
                    // A request to the broker every 20 ms, answered by the benchmark's own JVM: the steady window
                    // (10 % to 90 % of the backlog, several seconds) is off by at most 0.04 s.
                    Pause.millis(20);
                }
                throw new IllegalStateException("the relay did not publish " + events + " events within 10 minutes");
            }
        }
    }

    /** Every partition of {@code topic}, each asked for its end offset. */
    private static Map<TopicPartition, OffsetSpec> latestOf(Admin admin, String topic) throws Exception {
        return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
                .partitions().stream()
                .collect(Collectors.toMap(p -> new TopicPartition(topic, p.partition()), p -> OffsetSpec.latest()));
    }

    /** The sum of these partitions' end offsets: every record Kafka has acknowledged on them. */
    private static long endOffsets(Admin admin, Map<TopicPartition, OffsetSpec> partitions) throws Exception {
        return admin.listOffsets(partitions).all().get(30, TimeUnit.SECONDS).values().stream()
                .mapToLong(ListOffsetsResultInfo::offset).sum();
    }

    /** The same records as the relay's, from the events table, sent with the relay's producer settings. */
    private static double bareProducer(String jdbcUrl, String bootstrap, long afterPosition) throws Exception {
        var records = new ArrayList<ProducerRecord<String, String>>();
        try (var connection = DriverManager.getConnection(jdbcUrl, "postgres", "postgres");
                var statement = connection.prepareStatement("""
                        SELECT account_id::text, payload::text, id::text, type, version FROM ledger.events
                        WHERE position > ? ORDER BY position""")) {
            statement.setLong(1, afterPosition);
            try (var rs = statement.executeQuery()) {
                while (rs.next()) {
                    var record = new ProducerRecord<String, String>("bench.bare", rs.getString(1), rs.getString(2));
                    record.headers().add("eventId", rs.getString(3).getBytes(StandardCharsets.UTF_8));
                    record.headers().add("eventType", rs.getString(4).getBytes(StandardCharsets.UTF_8));
                    record.headers().add("version", Long.toString(rs.getLong(5)).getBytes(StandardCharsets.UTF_8));
                    records.add(record);
                }
            }
        }
        try (var producer = OutboxProducer.create(bootstrap, "bench-bare-producer", Duration.ZERO,
                Duration.ofMinutes(2))) {
            producer.partitionsFor("bench.bare");
            long started = System.nanoTime();
            var sends = new ArrayList<Future<RecordMetadata>>(records.size());
            for (var record : records) {
                sends.add(producer.send(record));
            }
            for (var send : sends) {
                send.get();
            }
            return records.size() / ((System.nanoTime() - started) / 1e9);
        }
    }

    private static long maxPosition(String jdbcUrl) throws Exception {
        try (var connection = DriverManager.getConnection(jdbcUrl, "postgres", "postgres");
                var statement = connection.createStatement();
                var rs = statement.executeQuery("SELECT coalesce(max(position), 0) FROM ledger.events")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void createTopic(String bootstrap, String topic) throws Exception {
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 6, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
    }

    private ChildProcess relay(String jdbcUrl, String bootstrap, int port, Path base) {
        var process = ChildProcess.start("relay", JavaCommand.of(OutboxRelayApplication.class,
                withProfile(LabProcess.labJvmFlags(), "relay"), List.of("--spring.datasource.url=" + jdbcUrl,
                        "--spring.flyway.user=postgres", "--spring.flyway.password=postgres",
                        "--spring.kafka.bootstrap-servers=" + bootstrap, "--server.port=" + port,
                        "--spring.main.banner-mode=off")), base);
        process.awaitReady(port);
        return process;
    }

    private ChildProcess bare(EmbeddedStack stack, Path offsets, int expect, Path base) {
        var url = URI.create(stack.postgres().jdbcUrl().substring("jdbc:".length()));
        return ChildProcess.start("bare-engine", JavaCommand.of(BareEngineMain.class,
                withProfile(LabProcess.labJvmFlags(), "bare-engine"),
                List.of("--host=" + url.getHost(), "--port=" + url.getPort(), "--database=ledger",
                        "--user=postgres", "--password=postgres", "--slot=bench_bare", "--publication=ledger_outbox",
                        "--offsets=" + offsets, "--expect=" + expect)), base);
    }

    private List<String> withProfile(List<String> flags, String process) {
        var all = new ArrayList<>(flags);
        all.addAll(options.profileFlags(process));
        return all;
    }

    /** Waits until a relay has published {@code count} records since it started. */
    private static void awaitPublished(int port, long count, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (published(port) < count) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the relay did not publish " + count + " records within " + timeout);
            }
            Pause.millis(100);
        }
    }

    private static long published(int port) {
        var body = get(port, "/relay/status");
        return body == null ? 0 : Long.parseLong(CommandClient.field(body, "recordsPublished"));
    }

    private static String get(int port, String path) {
        try {
            var response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? response.body() : null;
        }
        catch (IOException e) {
            return null;
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
