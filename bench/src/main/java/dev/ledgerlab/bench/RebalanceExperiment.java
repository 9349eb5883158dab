package dev.ledgerlab.bench;

import dev.ledgerlab.commandapi.CommandApiApplication;
import dev.ledgerlab.infra.EmbeddedKafka;
import dev.ledgerlab.infra.EmbeddedPostgres;
import dev.ledgerlab.infra.EmbeddedStack;
import dev.ledgerlab.infra.JavaCommand;
import dev.ledgerlab.projector.ProjectorApplication;
import dev.ledgerlab.relay.OutboxRelayApplication;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The course's rebalance experiment, on the whole pipeline: three projector processes share the topic's six
 * partitions under a steady load of deposits; one is killed with SIGKILL; how long do partitions stop being applied,
 * and how many records are delivered again? Once for each way a group can rebalance: the classic protocol with the
 * eager range assignor (Kafka's default: every member gives up every partition at each rebalance), with the
 * cooperative-sticky assignor (only the moved partitions stop), and Kafka 4's consumer protocol (the broker assigns,
 * KIP-848). Each with the positions this lab stores with the projection and with Kafka's committed offsets (the
 * usual design), since only the latter redelivers anything. Sessions are 10 s everywhere (the projector's
 * {@code session.timeout.ms}, and the broker's {@code group.consumer.session.timeout.ms} for the consumer protocol).
 */
final class RebalanceExperiment {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final int LOAD_PER_SECOND = 300;
    private static final long BEFORE_KILL_MILLIS = 10_000;
    private static final long AFTER_KILL_MILLIS = 30_000;

    private record Variant(String name, String positions, List<String> projectorArgs) {
    }

    /** One reading of the group's progress, {@code millis} after the kill (negative: before it). */
    private record Sample(long millis, Map<Integer, Long> offsets, long duplicates) {
    }

    private final BenchOptions options;
    private final Report report;
    private final Path work;

    RebalanceExperiment(BenchOptions options, Report report, Path work) {
        this.options = options;
        this.report = report;
        this.work = work;
    }

    void run(Path charts, String stamp) throws Exception {
        var variants = new ArrayList<Variant>();
        for (var positions : options.quick() ? List.of("kafka") : List.of("kafka", "database")) {
            // One consumer per projector (the default is two), so that killing one of three kills one member of three.
            var args = List.of("--projector.positions=" + positions, "--projector.concurrency=1");
            variants.add(new Variant("eager (classic, range)", positions, with(args,
                    "--spring.kafka.consumer.properties.partition.assignment.strategy="
                            + "org.apache.kafka.clients.consumer.RangeAssignor")));
            variants.add(new Variant("cooperative-sticky (classic)", positions, with(args,
                    "--spring.kafka.consumer.properties.partition.assignment.strategy="
                            + "org.apache.kafka.clients.consumer.CooperativeStickyAssignor")));
            variants.add(new Variant("consumer protocol (KIP-848)", positions, with(args,
                    "--spring.kafka.consumer.properties.group.protocol=consumer")));
        }
        var rows = new ArrayList<String>(List.of(
                "| protocol | positions from | partitions moved | pause of the moved ones | pause of the others |"
                        + " records delivered again |",
                "| --- | --- | --- | --- | --- | --- |"));
        var timelines = new LinkedHashMap<String, List<double[]>>();
        for (var variant : variants) {
            var samples = new ArrayList<Sample>();
            var moved = new HashSet<Integer>();
            long redelivered = runVariant(variant, samples, moved);
            var pauses = pauses(samples, moved);
            long duplicates = samples.get(samples.size() - 1).duplicates() - samples.get(0).duplicates();
            var key = "rebalance." + (variant.name().split(" ")[0].replace("-", "_")) + "." + variant.positions();
            report.put(key + ".moved_partitions", moved.size()).put(key + ".pause_moved_ms", pauses[0])
                    .put(key + ".pause_others_ms", pauses[1]).put(key + ".duplicates_skipped", duplicates)
                    .put(key + ".redelivered_below_stored", redelivered);
            rows.add("| %s | %s | %d | %,.0f ms | %,.0f ms | %,d (%,d skipped as duplicates) |".formatted(variant.name(),
                    variant.positions().equals("kafka") ? "Kafka's committed offsets" : "projection.offsets",
                    moved.size(), pauses[0], pauses[1], duplicates + redelivered, duplicates));
            System.out.printf("rebalance, %s, positions from %s: %d partitions moved, paused %.0f ms; the others"
                    + " paused %.0f ms; %d duplicates skipped, %d refused below the stored offsets%n", variant.name(),
                    variant.positions(), moved.size(), pauses[0], pauses[1], duplicates, redelivered);
            if (variant.positions().equals("kafka")) {
                timelines.put(variant.name(), appliedPerSecond(samples));
            }
        }
        report.section("Rebalance: one of three projectors SIGKILLed under %d deposits/s".formatted(LOAD_PER_SECOND),
                rows.toArray(String[]::new));
        Charts.timeline(charts.resolve("rebalance.png"), "Events applied per second; one of three projectors killed"
                + " at 0", stamp, "events applied per second (positions from Kafka)", timelines);
    }

    private static List<String> with(List<String> args, String more) {
        var all = new ArrayList<>(args);
        all.add(more);
        return all;
    }

    /** Returns the records the survivors refused as below the stored offsets. */
    private long runVariant(Variant variant, List<Sample> samples, Set<Integer> moved) throws Exception {
        var dir = work.resolve("rebalance-" + UUID.randomUUID().toString().substring(0, 8));
        var postgresSettings = options.fsync() ? Map.of("fsync", "on", "synchronous_commit", "on")
                : Map.of("fsync", "off", "synchronous_commit", "off");
        var processes = new ArrayList<ChildProcess>();
        try (var postgres = EmbeddedPostgres.start(dir.resolve("postgres"), EmbeddedStack.freePort(), postgresSettings);
                var kafka = EmbeddedKafka.start(dir.resolve("kafka"), EmbeddedStack.freePort(), EmbeddedStack.freePort(),
                        Map.of("group.consumer.min.session.timeout.ms", "6000",
                                "group.consumer.session.timeout.ms", "10000",
                                "group.consumer.min.heartbeat.interval.ms", "1000",
                                "group.consumer.heartbeat.interval.ms", "1000"))) {
            var common = List.of("--spring.datasource.url=" + postgres.jdbcUrl(), "--spring.flyway.user=postgres",
                    "--spring.flyway.password=postgres", "--spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                    "--spring.main.banner-mode=off");
            int apiPort = EmbeddedStack.freePort();
            var api = service("command-api", CommandApiApplication.class, common, apiPort, List.of(), dir);
            processes.add(api);
            int relayPort = EmbeddedStack.freePort();
            processes.add(service("relay", OutboxRelayApplication.class, common, relayPort, List.of(), dir));
            var projectorPorts = new int[] {EmbeddedStack.freePort(), EmbeddedStack.freePort(), EmbeddedStack.freePort()};
            var projectors = new ArrayList<CompletableFuture<ChildProcess>>();
            for (int port : projectorPorts) {
                projectors.add(CompletableFuture.supplyAsync(() -> service("projector", ProjectorApplication.class,
                        common, port, variant.projectorArgs(), dir)));
            }
            var instances = projectors.stream().map(CompletableFuture::join).toList();
            processes.addAll(instances);
            awaitSpread(projectorPorts);

            List<UUID> accounts;
            try (var client = new CommandClient(apiPort, projectorPorts[0])) {
                accounts = client.openAccounts(100);
            }
            var running = new AtomicBoolean(true);
            var failure = new AtomicReference<Throwable>();
            var load = steadyLoad(apiPort, accounts, running, failure);
            try (var connection = DriverManager.getConnection(postgres.jdbcUrl(), "postgres", "postgres")) {
                long start = System.currentTimeMillis();
                long kill = start + BEFORE_KILL_MILLIS;
                boolean killed = false;
                while (System.currentTimeMillis() < kill + AFTER_KILL_MILLIS) {
                    long now = System.currentTimeMillis();
                    if (!killed && now >= kill) {
                        moved.addAll(assigned(projectorPorts[0]));
                        instances.get(0).kill();
                        kill = System.currentTimeMillis();
                        killed = true;
                    }
                    samples.add(sample(connection, now - kill));
                    Pause.millis(100);
                }
                running.set(false);
                for (var thread : load) {
                    thread.join();
                }
                if (failure.get() != null) {
                    throw new IllegalStateException("the load failed: " + failure.get(), failure.get());
                }
                CommandSuite.awaitProjected(connection, java.time.Duration.ofMinutes(3));
                samples.add(sample(connection, System.currentTimeMillis() - kill));
            }
            long redelivered = 0;
            for (int i = 1; i < projectorPorts.length; i++) {
                redelivered += Long.parseLong(CommandClient.field(get(projectorPorts[i], "/projection/status"),
                        "redeliveredSinceStart"));
            }
            return redelivered;
        }
        finally {
            for (int i = processes.size() - 1; i >= 0; i--) {
                processes.get(i).close();
            }
            EmbeddedStack.deleteIfAbandoned(dir);
        }
    }

    private ChildProcess service(String name, Class<?> main, List<String> common, int port, List<String> more,
            Path dir) {
        var args = new ArrayList<>(common);
        args.add("--server.port=" + port);
        args.addAll(more);
        var process = ChildProcess.start(name, JavaCommand.of(main, LabProcess.labJvmFlags(), args), dir);
        process.awaitReady(port);
        return process;
    }

    /** Waits until each of the three members holds two of the six partitions. */
    private static void awaitSpread(int[] ports) {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (System.nanoTime() < deadline) {
            boolean spread = true;
            for (int port : ports) {
                spread &= assigned(port).size() == 2;
            }
            if (spread) {
                return;
            }
            Pause.millis(200);
        }
        throw new IllegalStateException("the three projectors did not share the six partitions within 2 minutes");
    }

    private static Set<Integer> assigned(int port) {
        var body = get(port, "/projection/status");
        var list = body.substring(body.indexOf("\"assignedHere\":[") + 16);
        list = list.substring(0, list.indexOf(']'));
        var partitions = new HashSet<Integer>();
        for (var p : list.split(",")) {
            if (!p.isBlank()) {
                partitions.add(Integer.parseInt(p.strip()));
            }
        }
        return partitions;
    }

    /** Deposits at a steady rate from eight clients, each paced by the clock. */
    private static List<Thread> steadyLoad(int apiPort, List<UUID> accounts, AtomicBoolean running,
            AtomicReference<Throwable> failure) {
        var threads = new ArrayList<Thread>();
        int clients = 8;
        long interval = TimeUnit.SECONDS.toNanos(1) * clients / LOAD_PER_SECOND;
        for (int c = 0; c < clients; c++) {
            var random = new Random(c);
            var thread = new Thread(() -> {
                try (var client = new CommandClient(apiPort, apiPort)) {
                    long next = System.nanoTime();
                    while (running.get()) {
                        client.deposit(accounts.get(random.nextInt(accounts.size())), 1);
                        next += interval;
                        long wait = next - System.nanoTime();
                        if (wait > 0) {
                            LockSupport.parkNanos(wait);
                        }
                    }
                }
                catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "bench-steady-load-" + c);
            threads.add(thread);
            thread.start();
        }
        return threads;
    }

    private static Sample sample(java.sql.Connection connection, long millis) throws Exception {
        var offsets = new TreeMap<Integer, Long>();
        long duplicates = 0;
        try (var statement = connection.createStatement(); var rs = statement.executeQuery(
                "SELECT partition, next_offset, duplicates FROM projection.offsets WHERE group_id = 'projection'")) {
            while (rs.next()) {
                offsets.put(rs.getInt(1), rs.getLong(2));
                duplicates += rs.getLong(3);
            }
        }
        return new Sample(millis, offsets, duplicates);
    }

    /**
     * The longest time without progress after the kill: [0] among the partitions the killed member held, [1] among
     * the others. A partition "progresses" when its stored offset moves; the load keeps every partition busy.
     */
    private static double[] pauses(List<Sample> samples, Set<Integer> moved) {
        var longest = new double[2];
        var partitions = samples.get(samples.size() - 1).offsets().keySet();
        for (int partition : partitions) {
            long lastChange = Long.MIN_VALUE;
            long previous = -1;
            long stall = 0;
            for (var sample : samples) {
                long offset = sample.offsets().getOrDefault(partition, 0L);
                if (offset != previous) {
                    if (lastChange != Long.MIN_VALUE && sample.millis() > 0) {
                        stall = Math.max(stall, sample.millis() - Math.max(lastChange, 0));
                    }
                    previous = offset;
                    lastChange = sample.millis();
                }
            }
            var last = samples.get(samples.size() - 1);
            if (lastChange != Long.MIN_VALUE && last.millis() > 0) {
                stall = Math.max(stall, last.millis() - Math.max(lastChange, 0));
            }
            int which = moved.contains(partition) ? 0 : 1;
            longest[which] = Math.max(longest[which], stall);
        }
        return longest;
    }

    /** Events applied per second by the whole group, from 5 s before the kill to the end of the window. */
    private static List<double[]> appliedPerSecond(List<Sample> samples) {
        var points = new ArrayList<double[]>();
        Sample previous = null;
        for (var sample : samples) {
            if (sample.millis() < -5_000 || sample.millis() > AFTER_KILL_MILLIS) {
                continue;
            }
            if (previous != null && sample.millis() - previous.millis() >= 1000) {
                long applied = sample.offsets().values().stream().mapToLong(Long::longValue).sum()
                        - previous.offsets().values().stream().mapToLong(Long::longValue).sum();
                points.add(new double[] {sample.millis() / 1000.0,
                    applied * 1000.0 / (sample.millis() - previous.millis())});
                previous = sample;
            }
            else if (previous == null) {
                previous = sample;
            }
        }
        return points;
    }

    private static String get(int port, String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        }
        catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
