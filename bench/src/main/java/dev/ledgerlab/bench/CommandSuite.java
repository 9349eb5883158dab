package dev.ledgerlab.bench;

import dev.ledgerlab.infra.EmbeddedStack;
import dev.ledgerlab.relay.RelayProperties;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The command path, each figure beside its baseline from the same run:
 * <ol>
 *   <li>the lab's start: to ready, and to the first event visible in the projection;</li>
 *   <li>throughput over HTTP with keep-alive clients (1, 16, 64) over 1,000 accounts and over 10 hot ones, with the
 *       whole pipeline running and with the command API alone, against the same transaction over plain JDBC from as
 *       many threads against the same PostgreSQL;</li>
 *   <li>latency at a fixed open-loop load of half the measured maximum, and end to end at that load;</li>
 *   <li>the lab's resident memory after 100,000 deposits on fresh data, and after all of the above;</li>
 *   <li>then, in the same lab, replays in place of everything those runs wrote, by the lab's own projector (in the
 *       lab's JVM and heap, beside the other services and the broker), each right after a bare consumer in the
 *       benchmark's JVM has read and parsed the same topic.</li>
 * </ol>
 */
final class CommandSuite {

    private static final String ALL = "command-api,outbox-relay,projector";
    private static final int ACCOUNTS = 1000;
    private static final int HOT = 10;
    private static final String TOPIC = RelayProperties.DEFAULT_TOPIC;

    private final BenchOptions options;
    private final BenchOptions.Scale scale;
    private final Report report;
    private final Path work;
    private final Map<String, List<double[]>> throughputLines = new LinkedHashMap<>();
    private final Map<String, Histogram> latencies = new LinkedHashMap<>();

    CommandSuite(BenchOptions options, Report report, Path work) {
        this.options = options;
        this.scale = options.scale();
        this.report = report;
        this.work = work;
    }

    void run(Path charts, String stamp) throws Exception {
        labStarts();
        memory();
        try (var lab = startLab("pipeline", ALL)) {
            recordDurability(lab);
            throughput(lab, "pipeline", true);
            latency(lab);
            memoryAfterRun(lab);
            replayInTheLab(lab);
        }
        try (var lab = startLab("alone", "command-api")) {
            throughput(lab, "alone", false);
        }
        Charts.throughput(charts.resolve("throughput.png"), "Deposits per second against clients", stamp,
                throughputLines);
        Charts.percentiles(charts.resolve("latency.png"), "Latency by percentile, open loop at half the maximum",
                stamp, latencies);
    }

    private LabProcess startLab(String name, String services) {
        var dir = work.resolve(name + "-" + UUID.randomUUID().toString().substring(0, 8));
        var lab = LabProcess.start(dir, services, options.postgresArguments(), options.profileFlags("lab-" + name));
        System.out.printf("lab (%s) up in %.1f s, pid %d%n", services, lab.readySeconds(), lab.pid());
        return lab;
    }

    /** Start to ready, and to the first deposit visible, on fresh data, as often as every measurement is repeated. */
    private void labStarts() {
        var ready = new ArrayList<Double>();
        var firstVisible = new ArrayList<Double>();
        for (int run = 0; run < options.repetitions(); run++) {
            try (var lab = startLab("start", ALL);
                    var client = new CommandClient(lab.commandApiPort(), lab.projectorPort())) {
                ready.add(lab.readySeconds());
                var account = client.openAccounts(1).get(0);
                var deposit = client.deposit(account, 1);
                client.awaitVisible(account, deposit.version());
                firstVisible.add((System.nanoTime() - lab.spawnedNanos()) / 1e9);
            }
        }
        System.out.printf("lab start: ready %s s, first event visible %s s%n", ready, firstVisible);
        report.put("lab.ready_s", Stats.median(ready)).put("lab.ready_runs_s", ready)
                .put("lab.first_event_s", Stats.median(firstVisible)).put("lab.first_event_runs_s", firstVisible);
    }

    private void recordDurability(LabProcess lab) throws SQLException {
        try (var connection = DriverManager.getConnection(lab.jdbcUrl(), "postgres", "postgres");
                var statement = connection.createStatement()) {
            for (var setting : List.of("fsync", "synchronous_commit")) {
                try (var rs = statement.executeQuery("SHOW " + setting)) {
                    rs.next();
                    report.put("durability." + setting, rs.getString(1));
                }
            }
        }
    }

    private void throughput(LabProcess lab, String mode, boolean pipeline) throws Exception {
        List<UUID> accounts;
        List<UUID> hot;
        try (var client = new CommandClient(lab.commandApiPort(), lab.projectorPort())) {
            accounts = client.openAccounts(ACCOUNTS);
            hot = client.openAccounts(HOT);
        }
        warmUp(lab, accounts, mode, pipeline);
        var sets = new LinkedHashMap<String, List<UUID>>();
        sets.put("accounts" + ACCOUNTS, accounts);
        if (!options.quick() || pipeline) {
            sets.put("hot" + HOT, hot);
        }
        for (var set : sets.entrySet()) {
            var httpLine = new ArrayList<double[]>();
            var jdbcLine = new ArrayList<double[]>();
            for (int clients : scale.clients()) {
                var http = ClosedLoop.run(clients, index -> httpDeposits(lab, set.getValue(), index),
                        scale.warmup(), scale.window(), options.repetitions());
                if (pipeline) {
                    awaitProjected(lab);
                }
                var jdbc = ClosedLoop.run(clients, index -> JdbcCommands.depositClient(lab.jdbcUrl(), set.getValue(), index),
                        scale.warmup(), scale.window(), options.repetitions());
                if (pipeline) {
                    awaitProjected(lab);
                }
                double ratio = Stats.median(http) / Stats.median(jdbc);
                var key = "command." + mode + "." + set.getKey() + ".clients" + clients;
                report.put(key + ".http", http).put(key + ".jdbc", jdbc).put(key + ".http_per_s", Stats.median(http))
                        .put(key + ".jdbc_per_s", Stats.median(jdbc)).put(key + ".ratio", ratio);
                System.out.printf("%s, %s, %d clients: HTTP %s/s, JDBC %s/s, ratio %.2f%n", mode, set.getKey(),
                        clients, Stats.spread(http), Stats.spread(jdbc), ratio);
                httpLine.add(new double[] {clients, Stats.median(http)});
                jdbcLine.add(new double[] {clients, Stats.median(jdbc)});
            }
            var what = (pipeline ? "whole pipeline" : "command API alone") + ", "
                    + (set.getKey().startsWith("hot") ? HOT + " hot accounts" : "1,000 accounts");
            throughputLines.put("HTTP, " + what, httpLine);
            throughputLines.put("JDBC baseline, " + what, jdbcLine);
        }
        var ratio64 = "command." + mode + ".accounts" + ACCOUNTS + ".clients64.ratio";
        report.put(pipeline ? "command.ratio64" : "command.alone.ratio64", report.number(ratio64));
    }

    /**
     * The lab's JVM compiles its hot paths for minutes under load on two cores (its C2 compiler thread takes most of a
     * core meanwhile; seen: 700 deposits/s in the first 15 s, 1,690 after 2.5 minutes, and a rate that rose by less
     * than 5 % a window long before that). Figures of a cold JVM would measure the compiler, so the lab is driven at
     * 64 clients until its compiler threads rest (under 3 % of a core over a window), or the warm-up's limit. The
     * JDBC baseline's client warms up alike, briefly.
     */
    private void warmUp(LabProcess lab, List<UUID> accounts, String mode, boolean pipeline) throws Exception {
        long started = System.nanoTime();
        long limit = scale.warmUpLimit().toNanos();
        var rates = new ArrayList<Double>();
        var compiling = new ArrayList<Double>();
        while (System.nanoTime() - started < limit) {
            double share = lab.compilerShareDuring(() -> rates.addAll(ClosedLoop.run(64,
                    index -> httpDeposits(lab, accounts, index), Duration.ZERO, scale.warmUpWindow(), 1)));
            compiling.add(share);
            if (rates.size() >= 2 && LabProcess.isWarm(share)) {
                break;
            }
        }
        var jdbc = ClosedLoop.run(64, index -> JdbcCommands.depositClient(lab.jdbcUrl(), accounts, index), Duration.ZERO,
                scale.warmUpWindow(), 1);
        if (pipeline) {
            awaitProjected(lab);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        boolean warm = LabProcess.isWarm(compiling.get(compiling.size() - 1));
        report.put("command." + mode + ".warmup_s", seconds).put("command." + mode + ".warmup_rates", rates)
                .put("command." + mode + ".warm", warm);
        System.out.printf("%s warm-up: %.0f s (%s), HTTP at 64 clients %s/s, compiler threads %s of a core; JDBC"
                + " %s/s%n", mode, seconds, warm ? "warm" : "still compiling at the limit",
                rates.stream().map(rate -> "%,.0f".formatted(rate)).toList(),
                compiling.stream().map(share -> "%.0f%%".formatted(share * 100)).toList(),
                "%,.0f".formatted(jdbc.get(0)));
    }

    static ClosedLoop.Client httpDeposits(LabProcess lab, List<UUID> accounts, int index) {
        var client = new CommandClient(lab.commandApiPort(), lab.projectorPort());
        var random = new Random(index);
        return new ClosedLoop.Client() {
            @Override
            public void command(int sequence) {
                client.deposit(accounts.get(random.nextInt(accounts.size())), 1);
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }

    /**
     * Waits until the projector has applied every event written, so that the next measurement does not share the
     * machine with the pipeline catching up on the last one.
     */
    static void awaitProjected(LabProcess lab) throws SQLException {
        try (var connection = DriverManager.getConnection(lab.jdbcUrl(), "postgres", "postgres")) {
            awaitProjected(connection, Duration.ofMinutes(10));
        }
    }

    /** Waits until the projection has applied every event in the ledger (its group's offsets count them). */
    static void awaitProjected(java.sql.Connection connection, Duration limit) throws SQLException {
        long deadline = System.nanoTime() + limit.toNanos();
        try (var statement = connection.createStatement()) {
            while (System.nanoTime() < deadline) {
                try (var rs = statement.executeQuery("""
                        SELECT (SELECT count(*) FROM ledger.events)
                             - (SELECT coalesce(sum(applied), 0) FROM projection.offsets WHERE group_id = 'projection')""")) {
                    rs.next();
                    if (rs.getLong(1) <= 0) {
                        return;
                    }
                }
                Pause.millis(200);
            }
        }
        throw new IllegalStateException("the projection did not catch up within " + limit);
    }

    /**
     * Open loop at half the maximum the whole pipeline reached with 64 clients over 1,000 accounts; every fourth
     * deposit followed to its balance.
     */
    private void latency(LabProcess lab) throws Exception {
        double maximum = report.number("command.pipeline.accounts" + ACCOUNTS + ".clients64.http_per_s");
        double rate = maximum / 2;
        var latency = new Histogram(TimeUnit.MINUTES.toMicros(2), 3);
        var endToEnd = new Histogram(TimeUnit.MINUTES.toMicros(2), 3);
        var toSend = new Histogram(TimeUnit.MINUTES.toMicros(2), 3);
        var sendToVisible = new Histogram(TimeUnit.MINUTES.toMicros(2), 3);
        var p99s = new ArrayList<Double>();
        var e2eP50s = new ArrayList<Double>();
        var e2eP99s = new ArrayList<Double>();
        var achieved = new ArrayList<Double>();
        var settled = new ArrayList<Double>();
        List<UUID> accounts;
        try (var client = new CommandClient(lab.commandApiPort(), lab.projectorPort())) {
            accounts = client.openAccounts(ACCOUNTS);
            // Unmeasured: the balance reads that follow deposits are code the throughput runs never ran.
            awaitProjected(lab);
            OpenLoop.run(client, accounts, rate, scale.latencyRun().dividedBy(2), 64, 4, lab.bootstrapServers());
        }
        for (int run = 0; run < options.repetitions(); run++) {
            awaitProjected(lab);
            settled.add(MachineAtRest.await(Duration.ofMinutes(2)));
            try (var client = new CommandClient(lab.commandApiPort(), lab.projectorPort())) {
                var result = OpenLoop.run(client, accounts, rate, scale.latencyRun(), 64, 4, lab.bootstrapServers());
                latency.add(result.latency());
                endToEnd.add(result.endToEnd());
                toSend.add(result.toRelaySend());
                sendToVisible.add(result.relaySendToVisible());
                p99s.add(millis(result.latency(), 99));
                e2eP50s.add(millis(result.endToEnd(), 50));
                e2eP99s.add(millis(result.endToEnd(), 99));
                achieved.add(result.achievedPerSecond());
                System.out.printf("open loop at %.0f/s (achieved %.0f/s): latency p50 %.1f ms p99 %.1f ms; end to end"
                        + " p50 %.1f ms p99 %.1f ms (%d followed)%n", rate, result.achievedPerSecond(),
                        millis(result.latency(), 50), millis(result.latency(), 99), millis(result.endToEnd(), 50),
                        millis(result.endToEnd(), 99), result.endToEnd().getTotalCount());
            }
        }
        System.out.printf("before each open-loop run the machine came to rest after %s s%n", settled);
        report.put("latency.settle_s", settled).put("latency.offered_per_s", rate)
                .put("latency.achieved_per_s", Stats.median(achieved))
                .put("latency.p50_ms", millis(latency, 50)).put("latency.p99_ms", millis(latency, 99))
                .put("latency.p999_ms", millis(latency, 99.9)).put("latency.max_ms", latency.getMaxValue() / 1000.0)
                .put("latency.p99_runs_ms", p99s)
                .put("e2e.offered_per_s", rate).put("e2e.samples", endToEnd.getTotalCount())
                .put("e2e.p50_ms", millis(endToEnd, 50)).put("e2e.p99_ms", millis(endToEnd, 99))
                .put("e2e.max_ms", endToEnd.getMaxValue() / 1000.0)
                .put("e2e.p50_runs_ms", e2eP50s).put("e2e.p99_runs_ms", e2eP99s)
                .put("e2e.to_relay_send_p50_ms", millis(toSend, 50)).put("e2e.to_relay_send_p99_ms", millis(toSend, 99))
                .put("e2e.relay_send_to_visible_p50_ms", millis(sendToVisible, 50))
                .put("e2e.relay_send_to_visible_p99_ms", millis(sendToVisible, 99));
        latencies.put("command (deposit answered)", latency);
        latencies.put("end to end (answer to balance visible)", endToEnd);
    }

    private static double millis(Histogram histogram, double percentile) {
        return histogram.getTotalCount() == 0 ? Double.NaN : histogram.getValueAtPercentile(percentile) / 1000.0;
    }

    /**
     * The lab's resident memory as the target defines it: a fresh lab, the whole pipeline, 100,000 deposits from 64
     * clients over 1,000 accounts, the projection caught up.
     */
    private void memory() throws Exception {
        try (var lab = startLab("memory", ALL)) {
            List<UUID> accounts;
            try (var client = new CommandClient(lab.commandApiPort(), lab.projectorPort())) {
                accounts = client.openAccounts(ACCOUNTS);
            }
            double rate = ClosedLoop.runCount(64, index -> httpDeposits(lab, accounts, index),
                    scale.depositsBeforeMemory());
            awaitProjected(lab);
            long deposits = deposits(lab);
            double rss = lab.residentMib();
            report.put("lab.rss_mib", rss).put("lab.rss_after_deposits", deposits);
            System.out.printf("lab resident memory after %,d deposits (%,.0f/s) on fresh data: %.0f MiB%n", deposits,
                    rate, rss);
        }
    }

    /** And after every throughput and latency run of the pipeline's lab: the memory of a lab that has worked a while. */
    private void memoryAfterRun(LabProcess lab) throws Exception {
        awaitProjected(lab);
        long deposits = deposits(lab);
        double rss = lab.residentMib();
        report.put("lab.rss_after_run_mib", rss).put("lab.rss_after_run_deposits", deposits);
        System.out.printf("lab resident memory after the throughput and latency runs, %,d deposits: %.0f MiB%n",
                deposits, rss);
    }

    /**
     * The replay as the lab's users run it ({@code POST /projection/replay}), as often as every measurement is
     * repeated, each right after its baseline so that both share a minute of this machine; then the projection is
     * checked against the accounts the command API wrote.
     */
    private void replayInTheLab(LabProcess lab) throws Exception {
        var rates = new ArrayList<Double>();
        var parsed = new ArrayList<Double>();
        var pairRatios = new ArrayList<Double>();
        long events = 0;
        // Unmeasured, as in the replay suite: the baseline's code compiled, as the lab's was by its live projection.
        BareConsumer.rate(lab.bootstrapServers(), TOPIC, true);
        try (var client = new CommandClient(lab.commandApiPort(), lab.projectorPort())) {
            for (int run = 0; run < options.repetitions(); run++) {
                parsed.add(BareConsumer.rate(lab.bootstrapServers(), TOPIC, true));
                var replay = client.replayInPlace(lab.operatorPassword(), Duration.ofMinutes(10));
                events = replay.events();
                rates.add(replay.events() / replay.seconds());
                pairRatios.add(rates.get(run) / parsed.get(run));
                System.out.printf("lab replay %d: %,d events in %.3f s = %,.0f events/s, %.2f of the parsing consumer"
                        + " just before%n", replay.id(), replay.events(), replay.seconds(), rates.get(run),
                        pairRatios.get(run));
            }
        }
        long wrong = projectionAgainstAccounts(lab);
        if (wrong != 0) {
            throw new IllegalStateException(wrong + " accounts projected otherwise than the command API wrote them"
                    + " after the lab's replays");
        }
        double rss = lab.residentMib();
        double rate = Stats.median(rates);
        double baseline = Stats.median(parsed);
        report.put("replay.lab.events", events).put("replay.lab.rate", rate).put("replay.lab.rates", rates)
                .put("replay.lab.bare_consumer_parse_rate", baseline).put("replay.lab.bare_consumer_parse_rates", parsed)
                .put("replay.lab.ratio", rate / baseline).put("replay.lab.pair_ratios", pairRatios)
                .put("lab.rss_after_replays_mib", rss);
        System.out.printf("replay in the lab of %,d events: %,.0f/s = %.2f of the parsing consumer (%,.0f/s); every"
                + " account as written; resident memory after it %.0f MiB%n", events, rate, rate / baseline,
                baseline, rss);
    }

    /** Accounts whose projected balance or version differs from the command side's row (none once caught up). */
    private static long projectionAgainstAccounts(LabProcess lab) throws SQLException {
        try (var connection = DriverManager.getConnection(lab.jdbcUrl(), "postgres", "postgres");
                var statement = connection.createStatement();
                var rs = statement.executeQuery("""
                        SELECT count(*) FROM ledger.accounts a
                        LEFT JOIN projection.balances b ON b.account_id = a.account_id
                        WHERE b.account_id IS NULL OR b.balance <> a.balance OR b.version <> a.version""")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static long deposits(LabProcess lab) throws SQLException {
        try (var connection = DriverManager.getConnection(lab.jdbcUrl(), "postgres", "postgres");
                var statement = connection.createStatement();
                var rs = statement.executeQuery("SELECT count(*) FROM ledger.events WHERE type = 'MoneyDeposited'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static Path scratch() {
        return EmbeddedStack.scratchDirectory("bench");
    }
}
