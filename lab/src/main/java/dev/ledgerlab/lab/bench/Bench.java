package dev.ledgerlab.lab.bench;

import dev.ledgerlab.infra.EmbeddedStack;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ./ledger-lab bench}: the lab's speed as ratios of what this machine does without it, every baseline measured
 * in the same run (these machines are noisy: only ratios from one run compare). Not part of {@code ./mvnw verify}:
 * a benchmark reports figures, it asserts nothing. Writes {@code bench-results/latest.json} (read by other tools:
 * {@code command.ratio64}, {@code latency.p99_ms}, {@code e2e.p50_ms}, ...), {@code latest.md} and PNG charts, each
 * stamped with the commit, the machine, the lab's JVM flags and the durability in effect.
 */
public final class Bench {

    private Bench() {
    }

    public static void main(String[] args) throws Exception {
        if (java.util.Arrays.asList(args).contains("--help")) {
            System.out.print(BenchOptions.USAGE);
            return;
        }
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        }
        catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        java.nio.file.Files.createDirectories(options.out());
        var stamp = Stamp.now(options);
        var work = EmbeddedStack.scratchDirectory("bench");
        var report = new Report();
        stamp.into(report);
        report.put("mode", options.quick() ? "quick" : "full").put("what", options.what());
        long started = System.nanoTime();
        try {
            switch (options.what()) {
                case "producer" -> new ProducerExperiment(options, report, work).run(options.out(), stamp.line());
                case "rebalance" -> new RebalanceExperiment(options, report, work).run(options.out(), stamp.line());
                default -> suite(options, report, work, stamp);
            }
        }
        finally {
            EmbeddedStack.deleteIfAbandoned(work);
        }
        report.put("duration_s", (System.nanoTime() - started) / 1e9);
        var name = options.what().equals("all") ? "latest" : options.what();
        report.write(options.out(), name, header(options, stamp));
        System.out.printf("%nbench %s done in %.0f s: %s%n%s%n", options.what(), (System.nanoTime() - started) / 1e9,
                options.out().resolve(name + ".json"), report.markdown());
        System.exit(0);
    }

    private static void suite(BenchOptions options, Report report, Path work, Stamp stamp) throws Exception {
        var what = options.what();
        if (what.equals("all") || what.equals("commands")) {
            LabProcess.prepareClassArchive(work);
            new CommandSuite(options, report, work).run(options.out(), stamp.line());
        }
        if (what.equals("all") || what.equals("relay")) {
            new RelaySuite(options, report, work).run();
        }
        if (what.equals("all") || what.equals("replay")) {
            new ReplaySuite(options, report, work).run();
        }
        summary(report);
    }

    private static String header(BenchOptions options, Stamp stamp) {
        return "## Ledger Lab benchmark (%s%s)%n%n%s. Reproduce: `./ledger-lab bench%s%s`.".formatted(
                options.what(), options.quick() ? ", quick" : "", stamp.line(), options.quick() ? " --quick" : "",
                options.what().equals("all") ? "" : " " + options.what());
    }

    /** The table of the README: each figure, its baseline from the same run, the ratio, the target. */
    private static void summary(Report r) {
        var rows = new ArrayList<String>(List.of(
                "| what | the lab | baseline, same run | ratio | target |",
                "| --- | --- | --- | --- | --- |"));
        if (r.has("command.ratio64")) {
            rows.add(row("deposits/s, 64 HTTP clients, 1,000 accounts, whole pipeline",
                    perSecond(r, "command.pipeline.accounts1000.clients64.http_per_s"),
                    perSecond(r, "command.pipeline.accounts1000.clients64.jdbc_per_s") + " (JDBC, 64 threads)",
                    ratio(r, "command.ratio64"), ">= 0.6"));
            rows.add(row("deposits/s, 64 HTTP clients, 1,000 accounts, command API alone",
                    perSecond(r, "command.alone.accounts1000.clients64.http_per_s"),
                    perSecond(r, "command.alone.accounts1000.clients64.jdbc_per_s") + " (JDBC, 64 threads)",
                    ratio(r, "command.alone.ratio64"), ">= 0.8"));
            rows.add(row("command latency at %s/s offered (open loop), p50 / p99 / p99.9".formatted(
                    "%,.0f".formatted(r.number("latency.offered_per_s"))),
                    "%.1f / %.1f / %.1f ms".formatted(r.number("latency.p50_ms"), r.number("latency.p99_ms"),
                            r.number("latency.p999_ms")), "", "", ""));
            rows.add(row("end to end at that load (answer to balance visible), p50 / p99 / max",
                    "%.1f / %.1f / %.1f ms".formatted(r.number("e2e.p50_ms"), r.number("e2e.p99_ms"),
                            r.number("e2e.max_ms")), "", "", "p50 <= 10 ms, p99 <= 50 ms"));
            rows.add(row("... event time to the relay's send / send to visible, p50 (p99)",
                    "%.1f (%.1f) / %.1f (%.1f) ms".formatted(r.number("e2e.to_relay_send_p50_ms"),
                            r.number("e2e.to_relay_send_p99_ms"), r.number("e2e.relay_send_to_visible_p50_ms"),
                            r.number("e2e.relay_send_to_visible_p99_ms")), "", "", ""));
            rows.add(row("lab start to ready, fresh data (to the first event visible)",
                    "%.1f s (%.1f s)".formatted(r.number("lab.ready_s"), r.number("lab.first_event_s")), "", "",
                    "<= 8 s"));
            rows.add(row("lab resident memory after %,.0f deposits on fresh data".formatted(
                    r.number("lab.rss_after_deposits")), "%.0f MiB".formatted(r.number("lab.rss_mib")), "", "",
                    "<= 512 MiB"));
            rows.add(row("... and after the throughput and latency runs (%,.0f deposits)".formatted(
                    r.number("lab.rss_after_run_deposits")), "%.0f MiB".formatted(r.number("lab.rss_after_run_mib")),
                    "", "", ""));
        }
        if (r.has("relay.ratio")) {
            rows.add(row("relay drain of %,.0f events, steady (its start)".formatted(r.number("relay.events")),
                    perSecond(r, "relay.rate") + " (%.1f s)".formatted(r.number("relay.startup_s")),
                    perSecond(r, "relay.bare_debezium_rate") + " (bare Debezium engine); "
                            + perSecond(r, "relay.bare_producer_rate") + " (bare producer)",
                    ratio(r, "relay.ratio") + " / " + ratio(r, "relay.ratio_to_producer"), ">= 0.8 of Debezium"));
        }
        if (r.has("replay.ratio")) {
            rows.add(row("replay in place of %,.0f events".formatted(r.number("replay.events")),
                    perSecond(r, "replay.rate"), perSecond(r, "replay.bare_consumer_parse_rate")
                            + " (bare consumer parsing each value)", ratio(r, "replay.ratio"), ">= 0.8"));
        }
        if (r.has("replay.lab.ratio")) {
            rows.add(row("replay in place in the lab itself (its own JVM and heap) of %,.0f events".formatted(
                    r.number("replay.lab.events")), perSecond(r, "replay.lab.rate"),
                    perSecond(r, "replay.lab.bare_consumer_parse_rate") + " (bare consumer parsing each value)",
                    ratio(r, "replay.lab.ratio"), ""));
        }
        r.section("Summary", rows.toArray(String[]::new));
        if (r.has("command.ratio64")) {
            r.section("Deposits per second, every configuration (medians of the windows; ratio to JDBC)",
                    "| mode | accounts | clients | HTTP | JDBC | ratio |", "| --- | --- | --- | --- | --- | --- |");
            for (var mode : List.of("pipeline", "alone")) {
                for (var accounts : List.of("accounts1000", "hot10")) {
                    for (var clients : List.of(1, 16, 64)) {
                        var key = "command." + mode + "." + accounts + ".clients" + clients;
                        if (r.has(key + ".ratio")) {
                            r.line(row(mode.equals("pipeline") ? "whole pipeline" : "command API alone",
                                    accounts.equals("hot10") ? "10 hot" : "1,000", Integer.toString(clients),
                                    perSecond(r, key + ".http_per_s"), perSecond(r, key + ".jdbc_per_s"),
                                    ratio(r, key + ".ratio")));
                        }
                    }
                }
            }
        }
    }

    private static String row(String... cells) {
        return "| " + String.join(" | ", cells) + " |";
    }

    private static String perSecond(Report r, String path) {
        return "%,.0f/s".formatted(r.number(path));
    }

    private static String ratio(Report r, String path) {
        return "%.2f".formatted(r.number(path));
    }
}
