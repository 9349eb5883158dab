package dev.ledgerlab.bench;

import dev.ledgerlab.infra.EmbeddedPostgres;
import dev.ledgerlab.infra.EmbeddedStack;
import dev.ledgerlab.infra.PostgresServerSettings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.Histogram;
import org.flywaydb.core.Flyway;

/**
 * What a deposit costs the machine, and the same figures for another commit in the same run
 * ({@code --compare=REF}), since on this shared machine figures from two runs do not compare:
 * <ol>
 *   <li>the ceiling: the command's transaction over JDBC from 64 threads against a PostgreSQL with nothing else
 *       running (same settings as the lab's);</li>
 *   <li>each lab fresh, driven by 64 keep-alive HTTP clients over 1,000 accounts for its first minute: how close to
 *       its steady rate it gets within 60 s, and how far behind the commands its relay falls meanwhile (seconds:
 *       how long ago the commands it has just published were answered);</li>
 *   <li>then, in rounds that alternate between the labs, a window at 64 clients each, with {@link CpuMeter} readings
 *       at its edges: deposits per second and CPU per deposit by component;</li>
 *   <li>the same transaction over JDBC from 64 threads against the lab's own PostgreSQL, beside its pipeline (the
 *       baseline of {@code command.ratio64});</li>
 *   <li>end to end at a fixed 300 deposits per second, open loop: answer to balance visible.</li>
 * </ol>
 * Both labs stay up for the whole run; while one is measured the other idles, and its idle cost is measured too.
 */
final class CostSuite {

    private static final String ALL = "command-api,outbox-relay,projector";
    private static final int ACCOUNTS = 1000;
    private static final int CLIENTS = 64;
    private static final double FIXED_RATE = 300;
    private static final Duration FIRST_MINUTE = Duration.ofSeconds(60);
    private static final Duration CURVE_WINDOW = Duration.ofSeconds(5);
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /** A lab measured: this checkout's, or another commit's built in a work tree. */
    record Variant(String label, String prefix, Path root) {
    }

    private record Lab(Variant variant, LabProcess process, List<UUID> accounts) {
    }

    private final BenchOptions options;
    private final BenchOptions.Scale scale;
    private final Report report;
    private final Path work;
    private final List<Variant> variants;

    CostSuite(BenchOptions options, Report report, Path work, List<Variant> variants) {
        this.options = options;
        this.scale = options.scale();
        this.report = report;
        this.work = work;
        this.variants = List.copyOf(variants);
    }

    void run(Path charts, String stamp) throws Exception {
        double ceiling = ceiling();
        var labs = new ArrayList<Lab>();
        try {
            for (var variant : variants) {
                LabProcess.prepareClassArchive(variant.root(), work);
                var dir = work.resolve("cost-" + variant.label() + "-" + UUID.randomUUID().toString().substring(0, 8));
                var process = LabProcess.start(variant.root(), dir, ALL, options.postgresArguments(),
                        options.profileFlags("lab-cost-" + variant.label()));
                System.out.printf("lab %s up in %.1f s, pid %d%n", variant.label(), process.readySeconds(),
                        process.pid());
                report.put(variant.prefix() + "lab.ready_s", process.readySeconds());
                List<UUID> accounts;
                try (var client = new CommandClient(process.commandApiPort(), process.projectorPort())) {
                    accounts = client.openAccounts(ACCOUNTS);
                }
                labs.add(new Lab(variant, process, accounts));
            }
            var firstMinute = new LinkedHashMap<Lab, List<Double>>();
            for (var lab : labs) {
                firstMinute.put(lab, firstMinute(lab));
            }
            var rates = new LinkedHashMap<Lab, List<Double>>();
            var costs = new LinkedHashMap<Lab, List<Map<String, Double>>>();
            for (int round = 0; round < options.repetitions(); round++) {
                for (var lab : labs) {
                    var idle = labs.stream().filter(other -> other != lab).map(other -> other.process().cpuMeter())
                            .toList();
                    var window = window(lab, idle);
                    rates.computeIfAbsent(lab, l -> new ArrayList<>()).add(window.perSecond());
                    costs.computeIfAbsent(lab, l -> new ArrayList<>()).add(window.msPerDeposit());
                }
            }
            if (labs.size() == 2) {
                // Round by round: each pair measured within a minute of each other, the closest this machine allows.
                var these = costs.get(labs.get(0));
                var others = costs.get(labs.get(1));
                var ratios = new ArrayList<Double>();
                for (int round = 0; round < these.size(); round++) {
                    ratios.add(these.get(round).get("total") / others.get(round).get("total"));
                }
                report.put("compare.cpu.per_deposit_round_ratios", ratios)
                        .put("compare.cpu.per_deposit_round_ratio", Stats.median(ratios));
                System.out.printf("CPU per deposit, %s / %s, round by round: %s%n", labs.get(0).variant().label(),
                        labs.get(1).variant().label(), ratios.stream().map("%.2f"::formatted).toList());
            }
            for (var lab : labs) {
                report(lab, ceiling, firstMinute.get(lab), rates.get(lab), costs.get(lab));
                besideThePipeline(lab);
                fixedRate(lab);
            }
        }
        finally {
            labs.forEach(lab -> lab.process().close());
        }
        var byVariant = new LinkedHashMap<String, Map<String, Double>>();
        for (var variant : variants) {
            var components = new LinkedHashMap<String, Double>();
            CpuMeter.COMPONENTS.forEach((key, label) ->
                    components.put(label, report.number(variant.prefix() + "cpu.components." + key + "_ms")));
            byVariant.put(variant.label(), components);
        }
        Charts.stackedBars(charts.resolve("cpu.png"), "CPU per deposit by component (ms), 64 clients, steady",
                stamp, byVariant);
    }

    /** The command's transaction over JDBC from 64 threads, against a PostgreSQL of its own with nothing else. */
    private double ceiling() throws Exception {
        var dir = work.resolve("ceiling-" + UUID.randomUUID().toString().substring(0, 8));
        var settings = new LinkedHashMap<>(PostgresServerSettings.fromClasspath());
        if (!options.fsync()) {
            settings.put("fsync", "off");
            settings.put("synchronous_commit", "off");
        }
        try (var postgres = EmbeddedPostgres.start(dir.resolve("postgres"), EmbeddedStack.freePort(), settings)) {
            var url = postgres.jdbcUrl();
            // The ledger's schema as the command API migrates it: the same tables, indexes and constraints.
            Flyway.configure().dataSource(url, postgres.username(), postgres.password()).schemas("ledger")
                    .defaultSchema("ledger").locations("classpath:db/migration/ledger", "classpath:db/roles")
                    .placeholders(Map.of("servicerole", "", "servicepassword", "")).load().migrate();
            var accounts = JdbcCommands.openAccounts(url, ACCOUNTS);
            var rates = ClosedLoop.run(CLIENTS, index -> JdbcCommands.depositClient(url, accounts, index),
                    scale.warmup(), scale.window(), options.repetitions());
            double ceiling = Stats.median(rates);
            report.put("command.ceiling_per_s", ceiling).put("command.ceiling_runs_per_s", rates);
            System.out.printf("ceiling: the deposit's transaction over JDBC, 64 threads, PostgreSQL alone: %s/s%n",
                    Stats.spread(rates));
            return ceiling;
        }
        finally {
            EmbeddedStack.deleteIfAbandoned(dir);
        }
    }

    /**
     * A fresh lab's first minute at 64 clients, in windows of five seconds, while its relay's distance behind the
     * commands is sampled every 250 ms. The full run warms the lab further, until its compiler threads rest.
     */
    private List<Double> firstMinute(Lab lab) throws Exception {
        CommandSuite.awaitProjected(lab.process());
        long publishedBefore = published(lab.process());
        var answered = new ConcurrentLinkedDeque<long[]>();
        var sampling = new AtomicBoolean(true);
        double[] maxBehind = {0, 0};
        var rates = new ArrayList<Double>();
        try (var load = ClosedLoop.start(CLIENTS, index -> CommandSuite.httpDeposits(lab.process(), lab.accounts(), index))) {
            var sampler = new Thread(() -> {
                while (sampling.get()) {
                    answered.add(new long[] {System.nanoTime(), load.done()});
                    long published;
                    try {
                        published = published(lab.process()) - publishedBefore;
                    }
                    catch (RuntimeException unanswered) {
                        Pause.millis(250);
                        continue;
                    }
                    long now = System.nanoTime();
                    long done = load.done();
                    // The moment the load had been answered as many deposits as the relay has now published.
                    long caughtUpTo = answered.stream().filter(point -> point[1] >= published).mapToLong(p -> p[0])
                            .min().orElse(now);
                    maxBehind[0] = Math.max(maxBehind[0], (now - caughtUpTo) / 1e9);
                    maxBehind[1] = Math.max(maxBehind[1], done - published);
                    Pause.millis(250);
                }
            }, "bench-relay-behind");
            sampler.setDaemon(true);
            sampler.start();
            long started = System.nanoTime();
            long windows = FIRST_MINUTE.dividedBy(CURVE_WINDOW);
            for (int w = 0; w < windows && !load.failed(); w++) {
                long before = load.done();
                long at = System.nanoTime();
                Pause.millis(CURVE_WINDOW.toMillis());
                rates.add((load.done() - before) / ((System.nanoTime() - at) / 1e9));
            }
            if (!options.quick()) {
                warmer(lab, load, started);
            }
            sampling.set(false);
            sampler.join();
        }
        var prefix = lab.variant().prefix();
        report.put(prefix + "warmup.first_minute_per_s", rates).put(prefix + "relay.max_behind_s", maxBehind[0])
                .put(prefix + "relay.max_behind_events", (long) maxBehind[1]);
        System.out.printf("lab %s, first minute at 64 clients (5 s windows): %s/s; the relay at most %.1f s (%,d"
                + " events) behind%n", lab.variant().label(),
                rates.stream().map(rate -> "%,.0f".formatted(rate)).toList(), maxBehind[0], (long) maxBehind[1]);
        CommandSuite.awaitProjected(lab.process());
        return rates;
    }

    /** Keeps the load on until the lab's compiler threads rest ({@link LabProcess#isWarm}), or the limit. */
    private void warmer(Lab lab, ClosedLoop.Running load, long started) {
        while (System.nanoTime() - started < scale.warmUpLimit().toNanos() && !load.failed()) {
            double share = lab.process().compilerShareDuring(() -> Pause.millis(scale.warmUpWindow().toMillis()));
            if (LabProcess.isWarm(share)) {
                return;
            }
        }
    }

    private record Window(double perSecond, Map<String, Double> msPerDeposit) {
    }

    /**
     * One window at 64 clients. The lab's CPU is read before the load starts, the pipeline caught up, and again once
     * it has caught up with the load: so each deposit carries its whole cost, the relay's and the projector's work for
     * it included, even when they fall behind during the window. The labs idling beside it are read alike.
     */
    private Window window(Lab lab, List<CpuMeter> idle) throws Exception {
        CommandSuite.awaitProjected(lab.process());
        var meter = lab.process().cpuMeter();
        var before = meter.read();
        var idleBefore = idle.stream().map(CpuMeter::read).toList();
        long generatorBefore = CpuMeter.ticks(Path.of("/proc/self/stat"));
        var load = ClosedLoop.start(CLIENTS, index -> CommandSuite.httpDeposits(lab.process(), lab.accounts(), index));
        double rate;
        try {
            Pause.millis(scale.warmup().toMillis());
            long counted = load.done();
            long started = System.nanoTime();
            Pause.millis(scale.costWindow().toMillis());
            rate = (load.done() - counted) / ((System.nanoTime() - started) / 1e9);
        } finally {
            // Once: the clients stop and are waited for, so that every deposit they sent is counted below.
            load.close();
        }
        long deposits = load.done();
        CommandSuite.awaitProjected(lab.process());
        var after = meter.read();
        long generator = CpuMeter.ticks(Path.of("/proc/self/stat")) - generatorBefore;
        var idleAfter = idle.stream().map(CpuMeter::read).toList();
        var seconds = meter.between(before, after);
        var cost = new LinkedHashMap<String, Double>();
        cost.put("total", seconds.values().stream().mapToDouble(Double::doubleValue).sum() * 1000 / deposits);
        seconds.forEach((key, used) -> cost.put(key, used * 1000 / deposits));
        cost.put("load_generator", generator * 10.0 / deposits);
        double idleSeconds = 0;
        for (int i = 0; i < idle.size(); i++) {
            idleSeconds += idle.get(i).totalSeconds(idleBefore.get(i), idleAfter.get(i));
        }
        cost.put("idle_labs_cores", idleSeconds / ((after.nanos() - before.nanos()) / 1e9));
        System.out.printf("lab %s, 64 clients: %,.0f deposits/s, %.3f ms of CPU per deposit (command API's request"
                + " threads %.3f, its PostgreSQL backends %.3f) over %,d deposits%n", lab.variant().label(), rate,
                cost.get("total"), cost.get("command_api_http"), cost.get("postgres_command_api"), deposits);
        return new Window(rate, cost);
    }

    private void report(Lab lab, double ceiling, List<Double> firstMinute, List<Double> rates,
            List<Map<String, Double>> costs) {
        var prefix = lab.variant().prefix();
        double steady = Stats.median(rates);
        report.put(prefix + "cost.deposits_per_s", steady).put(prefix + "cost.runs_per_s", rates)
                .put(prefix + "command.ceiling_ratio64", steady / ceiling)
                // The last five seconds of the first minute, against the rate once measured.
                .put(prefix + "warmup.ratio60", firstMinute.get(firstMinute.size() - 1) / steady);
        var totals = costs.stream().map(cost -> cost.get("total")).toList();
        report.put(prefix + "cpu.per_deposit_ms", Stats.median(totals)).put(prefix + "cpu.per_deposit_runs_ms", totals)
                .put(prefix + "cpu.request_threads_ms",
                        Stats.median(costs.stream().map(cost -> cost.get("command_api_http")).toList()))
                .put(prefix + "cpu.load_generator_ms",
                        Stats.median(costs.stream().map(cost -> cost.get("load_generator")).toList()))
                .put(prefix + "cpu.idle_labs_cores",
                        Stats.median(costs.stream().map(cost -> cost.get("idle_labs_cores")).toList()));
        for (var key : CpuMeter.COMPONENTS.keySet()) {
            report.put(prefix + "cpu.components." + key + "_ms",
                    Stats.median(costs.stream().map(cost -> cost.get(key)).toList()));
        }
    }

    /** The deposit's transaction over JDBC from 64 threads against the lab's PostgreSQL, its pipeline running. */
    private void besideThePipeline(Lab lab) throws Exception {
        CommandSuite.awaitProjected(lab.process());
        var url = lab.process().jdbcUrl();
        var rates = ClosedLoop.run(CLIENTS, index -> JdbcCommands.depositClient(url, lab.accounts(), index),
                scale.warmup(), scale.window(), 1);
        var prefix = lab.variant().prefix();
        report.put(prefix + "cost.beside_jdbc_per_s", rates.get(0))
                .put(prefix + "cost.ratio64", report.number(prefix + "cost.deposits_per_s") / rates.get(0));
        CommandSuite.awaitProjected(lab.process());
    }

    /** End to end at a fixed 300 deposits per second, every fourth deposit followed to its balance. */
    private void fixedRate(Lab lab) {
        MachineAtRest.await(Duration.ofSeconds(30));
        try (var client = new CommandClient(lab.process().commandApiPort(), lab.process().projectorPort())) {
            var result = OpenLoop.run(client, lab.accounts(), FIXED_RATE, scale.fixedRateRun(), CLIENTS, 4,
                    lab.process().bootstrapServers());
            var prefix = lab.variant().prefix();
            report.put(prefix + "e2e.fixed300.p50_ms", millis(result, 50))
                    .put(prefix + "e2e.fixed300.p99_ms", millis(result, 99))
                    .put(prefix + "e2e.fixed300.max_ms", result.endToEnd().getMaxValue() / 1000.0)
                    .put(prefix + "e2e.fixed300.samples", result.endToEnd().getTotalCount())
                    // Its two halves: the event's commit to the relay's send, and from there to visible.
                    .put(prefix + "e2e.fixed300.to_relay_send_p50_ms", millis(result.toRelaySend(), 50))
                    .put(prefix + "e2e.fixed300.to_relay_send_p99_ms", millis(result.toRelaySend(), 99))
                    .put(prefix + "e2e.fixed300.relay_send_to_visible_p50_ms", millis(result.relaySendToVisible(), 50))
                    .put(prefix + "e2e.fixed300.relay_send_to_visible_p99_ms", millis(result.relaySendToVisible(), 99))
                    .put(prefix + "e2e.fixed300.achieved_per_s", result.achievedPerSecond());
            System.out.printf("lab %s at a fixed 300/s (achieved %.0f/s): end to end p50 %.1f ms, p99 %.1f ms (%d"
                    + " followed)%n", lab.variant().label(), result.achievedPerSecond(), millis(result, 50),
                    millis(result, 99), result.endToEnd().getTotalCount());
        }
    }

    private static double millis(OpenLoop.Result result, double percentile) {
        return millis(result.endToEnd(), percentile);
    }

    private static double millis(Histogram histogram, double percentile) {
        return histogram.getTotalCount() == 0 ? Double.NaN : histogram.getValueAtPercentile(percentile) / 1000.0;
    }

    /** Records the relay has had acknowledged since it started, from its status (open without credentials). */
    private static long published(LabProcess lab) {
        try {
            var response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + lab.relayPort()
                    + "/relay/status")).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            return Long.parseLong(CommandClient.field(response.body(), "recordsPublished"));
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
