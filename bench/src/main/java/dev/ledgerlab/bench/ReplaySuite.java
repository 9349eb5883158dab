package dev.ledgerlab.bench;

import dev.ledgerlab.events.AccountEvent;
import dev.ledgerlab.events.AccountOpened;
import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.EventEnvelope;
import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.events.MoneyWithdrawn;
import dev.ledgerlab.infra.EmbeddedStack;
import dev.ledgerlab.projector.ProjectorApplication;
import dev.ledgerlab.projector.replay.Progress;
import dev.ledgerlab.projector.replay.ReplayQueries;
import dev.ledgerlab.projector.replay.Replays;
import dev.ledgerlab.relay.RelayProperties;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Replay rate against the rate of a bare consumer of the same topic, measured in one run on one machine:
 * <ol>
 *   <li>an embedded PostgreSQL and Kafka broker in a scratch directory, PostgreSQL durable as the lab runs it unless
 *       the benchmark is told otherwise;</li>
 *   <li>the events (valid envelopes over 10,000 accounts, versions contiguous per account) produced straight into
 *       {@code accounts.events} as the relay would (key = account, lz4, acks=all);</li>
 *   <li>a bare KafkaConsumer reads the whole topic from offset zero with a Jackson parse of each value (EventCodec,
 *       as the projector parses), once unmeasured to compile its code;</li>
 *   <li>the projector (in this JVM, with its own settings) projects the log, unmeasured as well;</li>
 *   <li>then, as often as every measurement is repeated: the bare consumer without and with the parse, and right after
 *       them the projector's replay in place, so that each replay and its baseline share the same minute;</li>
 *   <li>a shadow rebuild of the same log while a light live load of deposits keeps arriving.</li>
 * </ol>
 * Every projected balance is checked against the fold of what was produced.
 */
final class ReplaySuite {

    private static final String TOPIC = RelayProperties.DEFAULT_TOPIC;

    private final BenchOptions bench;
    private final Report report;
    private final Path work;
    private final int events;
    private final int accounts = 10_000;
    private final int partitions = 6;
    private final int runs;
    private UUID[] ids;
    private long[] balances;
    private long[] versions;

    ReplaySuite(BenchOptions bench, Report report, Path work) {
        this.bench = bench;
        this.report = report;
        this.work = work;
        this.events = bench.scale().replayEvents();
        this.runs = bench.repetitions();
    }

    void run() throws Exception {
        boolean fsync = bench.fsync();
        var settings = EmbeddedStack.Settings.under(work.resolve("replay-" + UUID.randomUUID().toString().substring(0, 8)))
                .withFreePorts()
                .withPostgresSetting("fsync", fsync ? "on" : "off")
                .withPostgresSetting("synchronous_commit", fsync ? "on" : "off").withFresh(true);
        try (var stack = EmbeddedStack.start(settings)) {
            var bootstrap = stack.kafka().bootstrapServers();
            createTopic(bootstrap);
            long produceStart = System.nanoTime();
            produce(bootstrap);
            report("produced", events, produceStart);

            // The baseline's warm-up, as the initial projection below is the replay's: the measured runs of both start
            // with their code compiled.
            BareConsumer.rate(bootstrap, TOPIC, true);
            var raw = new ArrayList<Double>();
            var parsed = new ArrayList<Double>();

            var postgres = stack.postgres();
            var projector = startProjector(postgres.jdbcUrl(), postgres.username(), postgres.password(), bootstrap);
            try {
                var replays = projector.getBean(Replays.class);
                var queries = projector.getBean(ReplayQueries.class);
                var jdbc = projector.getBean(JdbcTemplate.class);
                long initialStart = System.nanoTime();
                awaitCaughtUp(jdbc);
                report("initial projection (live consumer from zero)", events, initialStart);

                // Each replay right after its baseline runs, so that both of a pair see the machine in the same minute:
                // its speed moves by the hour here, and runs far apart compared that as well.
                var replayRates = new ArrayList<Double>();
                var pairRatios = new ArrayList<Double>();
                for (int run = 0; run < runs; run++) {
                    raw.add(BareConsumer.rate(bootstrap, TOPIC, false));
                    parsed.add(BareConsumer.rate(bootstrap, TOPIC, true));
                    var done = await(queries, replays.startReplay("benchmark").id());
                    if (!"completed".equals(done.state())) {
                        throw new IllegalStateException("replay " + done.id() + " ended " + done.state() + ": "
                                + done.detail());
                    }
                    // From the stored start and end, not the progress's rounded seconds.
                    double seconds = Duration.between(done.startedAt(), done.finishedAt()).toNanos() / 1e9;
                    replayRates.add(done.target() / seconds);
                    pairRatios.add(done.target() / seconds / parsed.get(run));
                    System.out.printf("replay %d: %,d events in %.3f s = %,.0f events/s (%s), %.2f of the parsing"
                            + " consumer just before%n", done.id(), done.target(), seconds, done.target() / seconds,
                            done.state(), pairRatios.get(run));
                }
                verify(jdbc);

                double rebuildSeconds = Double.NaN;
                if (!bench.quick()) {
                    rebuildSeconds = rebuildUnderLoad(replays, queries, bootstrap);
                    awaitCaughtUp(jdbc);
                    verify(jdbc);
                }

                double bareRaw = Stats.median(raw);
                double bareParsed = Stats.median(parsed);
                double replay = Stats.median(replayRates);
                System.out.printf("replay of %,d events over %,d accounts, %d partitions: bare consumer %,.0f/s,"
                        + " with parse %,.0f/s, replay %,.0f/s = %.2f of the parsing consumer; shadow rebuild under"
                        + " load %.1f s%n", events, accounts, partitions, bareRaw, bareParsed, replay,
                        replay / bareParsed, rebuildSeconds);
                report.put("replay.events", events).put("replay.rate", replay).put("replay.rates", replayRates)
                        .put("replay.bare_consumer_rate", bareRaw).put("replay.bare_consumer_parse_rate", bareParsed)
                        .put("replay.bare_consumer_parse_rates", parsed)
                        .put("replay.pair_ratios", pairRatios)
                        .put("replay.ratio", replay / bareParsed).put("replay.ratio_without_parse", replay / bareRaw)
                        .put("replay.rebuild_under_load_s", rebuildSeconds);
            } finally {
                projector.close();
            }
        } finally {
            // A million events leave ~300 MB of log and tables: nothing here is worth keeping.
            EmbeddedStack.deleteIfAbandoned(settings.baseDirectory());
        }
    }

    private void createTopic(String bootstrap) throws Exception {
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, partitions, (short) 1)
                    .configs(Map.of("retention.ms", "-1")))).all().get();
        }
    }

    private KafkaProducer<String, String> producer(String bootstrap) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4", ProducerConfig.LINGER_MS_CONFIG, "5",
                ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024)),
                new StringSerializer(), new StringSerializer());
    }

    /** Round-robin over the accounts, so that every batch of the log mixes many accounts, as real traffic does. */
    private void produce(String bootstrap) {
        ids = new UUID[accounts];
        balances = new long[accounts];
        versions = new long[accounts];
        for (int a = 0; a < accounts; a++) {
            ids[a] = UUID.randomUUID();
        }
        var random = new Random(42);
        try (var producer = producer(bootstrap)) {
            for (int i = 0; i < events; i++) {
                send(producer, i % accounts, random);
            }
            producer.flush();
        }
    }

    private void send(KafkaProducer<String, String> producer, int a, Random random) {
        long version = ++versions[a];
        AccountEvent event;
        if (version == 1) {
            event = new AccountOpened("bench-" + a);
        } else if (balances[a] > 100 && random.nextInt(4) == 0) {
            event = new MoneyWithdrawn(1 + random.nextInt(100));
        } else {
            event = new MoneyDeposited(1 + random.nextInt(1000));
        }
        balances[a] = event.applyTo(balances[a]);
        var envelope = new EventEnvelope(UUID.randomUUID(), ids[a], version,
                Instant.now().truncatedTo(ChronoUnit.MICROS), event);
        producer.send(new ProducerRecord<>(TOPIC, ids[a].toString(), EventCodec.toJson(envelope)));
    }

    private ConfigurableApplicationContext startProjector(String jdbcUrl, String user, String password,
            String bootstrap) {
        var args = new ArrayList<>(List.of("--spring.datasource.url=" + jdbcUrl, "--spring.datasource.username=" + user,
                "--spring.datasource.password=" + password, "--spring.kafka.bootstrap-servers=" + bootstrap,
                "--server.port=0", "--projector.replay.progress-interval=2s", "--spring.main.banner-mode=off"));
        return new SpringApplicationBuilder(ProjectorApplication.class)
                .properties("spring.config.name=" + ProjectorApplication.CONFIG_NAME)
                .run(args.toArray(String[]::new));
    }

    private void awaitCaughtUp(JdbcTemplate jdbc) {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
        while (jdbc.queryForObject(
                "SELECT coalesce(sum(next_offset), 0) FROM projection.offsets WHERE group_id = 'projection'",
                Long.class) < producedSoFar()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the projection did not catch up within 30 minutes");
            }
            Pause.millis(100);
        }
    }

    private long producedSoFar() {
        long sum = 0;
        for (var v : versions) {
            sum += v;
        }
        return sum;
    }

    private static Progress await(ReplayQueries replays, long id) {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
        while (true) {
            var progress = replays.progress(id);
            if (!"running".equals(progress.state())) {
                return progress;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("replay " + id + " did not end within 30 minutes");
            }
            Pause.millis(50);
        }
    }

    /** A rebuild while deposits keep arriving at a light, steady pace: time from the request to the swap. */
    private double rebuildUnderLoad(Replays replays, ReplayQueries queries, String bootstrap) throws Exception {
        var sent = new AtomicLong();
        int perSecond = 200;
        var random = new Random(7);
        var producer = producer(bootstrap);
        // A steady rate of deposits per second, scheduled: the live load is paced by the clock, not by sleeps.
        var load = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "live-load"));
        load.scheduleAtFixedRate(() -> {
            synchronized (this) {
                send(producer, random.nextInt(accounts), random);
            }
            sent.incrementAndGet();
            producer.flush();
        }, 0, 1_000_000 / perSecond, TimeUnit.MICROSECONDS);
        try {
            var done = await(queries, replays.startRebuild("benchmark").id());
            System.out.printf("rebuild %d: %s in %.2f s, %,d events at start, %,d live events sent during it (%s)%n",
                    done.id(), done.state(), done.elapsedSeconds(), done.target(), sent.get(), done.detail());
            return done.elapsedSeconds();
        } finally {
            load.shutdown();
            load.awaitTermination(30, TimeUnit.SECONDS);
            producer.close();
        }
    }

    private void verify(JdbcTemplate jdbc) {
        var projected = new HashMap<UUID, long[]>();
        jdbc.query("SELECT account_id, balance, version FROM projection.balances", rs -> {
            projected.put(rs.getObject(1, UUID.class), new long[] {rs.getLong(2), rs.getLong(3)});
        });
        int wrong = 0;
        for (int a = 0; a < accounts; a++) {
            var row = projected.get(ids[a]);
            if (row == null || row[0] != balances[a] || row[1] != versions[a]) {
                wrong++;
            }
        }
        System.out.printf("check: %,d accounts projected, %d differ from the fold of the produced events%n",
                projected.size(), wrong);
        if (wrong > 0 || projected.size() != accounts) {
            throw new IllegalStateException("the projection is not the fold of the log");
        }
    }

    private static void report(String what, long count, long startNanos) {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        System.out.printf("%s: %,d events in %.2f s = %,.0f events/s%n", what, count, seconds, count / seconds);
    }
}
