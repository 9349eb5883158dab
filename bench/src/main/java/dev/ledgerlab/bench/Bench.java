package dev.ledgerlab.bench;

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
        if (java.util.Arrays.asList(args).contains("--help") || java.util.Arrays.asList(args).contains("-h")) {
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
        // The quick run is the one run before and after every change: its figures are the latest too.
        var name = options.what().equals("all") || options.quick() && options.what().equals("cost") ? "latest"
                : options.what();
        report.write(options.out(), name, header(options, stamp));
        System.out.printf("%nbench %s done in %.0f s: %s%n%s%n", options.what(), (System.nanoTime() - started) / 1e9,
                options.out().resolve(name + ".json"), report.markdown());
        System.exit(0);
    }

    private static void suite(BenchOptions options, Report report, Path work, Stamp stamp) throws Exception {
        var what = options.what();
        if (what.equals("all") || what.equals("cost")) {
            cost(options, report, work, stamp);
        }
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

    /** What a deposit costs this commit's lab, and another commit's beside it when asked (--compare). */
    private static void cost(BenchOptions options, Report report, Path work, Stamp stamp) throws Exception {
        var variants = new ArrayList<CostSuite.Variant>();
        variants.add(new CostSuite.Variant(stamp.commit() + (stamp.dirty() ? "+" : ""), "", LabProcess.HERE));
        ReferenceBuild reference = null;
        try {
            if (options.compare() != null) {
                reference = ReferenceBuild.of(options.compare(), work);
                report.put("compare.ref", options.compare()).put("compare.commit", reference.commit());
                variants.add(new CostSuite.Variant(reference.commit(), "compare.", reference.root()));
            }
            new CostSuite(options, report, work, variants).run(options.out(), stamp.line());
        }
        finally {
            if (reference != null) {
                reference.close();
            }
        }
    }

    private static String header(BenchOptions options, Stamp stamp) {
        return "## Ledger Lab benchmark (%s%s)%n%n%s. Reproduce: `./ledger-lab bench%s%s%s`.".formatted(
                options.what(), options.quick() ? ", quick" : "", stamp.line(), options.quick() ? " --quick" : "",
                options.compare() == null ? "" : " --compare=" + options.compare(),
                options.what().equals("all") || options.what().equals("cost") && options.quick() ? ""
                        : " " + options.what());
    }

    /** The table of what a deposit costs: this commit's figures, and another's with their ratio if compared. */
    private static void costSummary(Report r) {
        boolean compared = r.has("compare.cpu.per_deposit_ms");
        var rows = new ArrayList<String>();
        rows.add(compared ? "| figure | this commit | " + r.text("compare.commit") + " | ratio | target |"
                : "| figure | this commit | target |");
        rows.add(compared ? "| --- | --- | --- | --- | --- |" : "| --- | --- | --- |");
        costRow(rows, r, compared, "CPU per deposit, whole lab (its JVM, its PostgreSQL), 64 clients, steady",
                "cpu.per_deposit_ms", "%.3f ms", "<= 1.0 ms");
        if (compared) {
            rows.add(row("... round by round (this / " + r.text("compare.commit") + ", each pair a minute apart at most)",
                    "", "", r.textList("compare.cpu.per_deposit_round_ratios"), ""));
        }
        CpuMeter.COMPONENTS.forEach((key, label) -> costRow(rows, r, compared, "... " + label,
                "cpu.components." + key + "_ms", "%.3f ms", key.equals("command_api_http") ? "<= 0.3 ms" : ""));
        costRow(rows, r, compared, "the load generator (64 HTTP clients; not counted above)", "cpu.load_generator_ms",
                "%.3f ms", "");
        costRow(rows, r, compared, "deposits/s, 64 HTTP clients, 1,000 accounts, whole pipeline", "cost.deposits_per_s",
                "%,.0f/s", "");
        rows.add(compared ? "| the ceiling: its transaction over JDBC, 64 threads, PostgreSQL alone | %,.0f/s | (the same)"
                .formatted(r.number("command.ceiling_per_s")) + " | | |"
                : "| the ceiling: its transaction over JDBC, 64 threads, PostgreSQL alone | %,.0f/s | |".formatted(
                        r.number("command.ceiling_per_s")));
        costRow(rows, r, compared, "... ratio to the ceiling", "command.ceiling_ratio64", "%.2f", ">= 0.45");
        costRow(rows, r, compared, "... ratio to JDBC beside the pipeline (its own PostgreSQL)", "cost.ratio64", "%.2f",
                "");
        costRow(rows, r, compared, "first minute of a fresh lab: its last 5 s against the steady rate",
                "warmup.ratio60", "%.2f", ">= 0.9");
        costRow(rows, r, compared, "the relay's farthest behind the commands in that minute", "relay.max_behind_s",
                "%.1f s", "<= 1 s");
        costRow(rows, r, compared, "end to end at a fixed 300/s (answer to balance visible), p50", "e2e.fixed300.p50_ms",
                "%.1f ms", "<= 15 ms");
        costRow(rows, r, compared, "... p99", "e2e.fixed300.p99_ms", "%.1f ms", "<= 50 ms");
        costRow(rows, r, compared, "... the event's commit to the relay's send, p50", "e2e.fixed300.to_relay_send_p50_ms",
                "%.1f ms", "");
        costRow(rows, r, compared, "... the relay's send to visible, p50", "e2e.fixed300.relay_send_to_visible_p50_ms",
                "%.1f ms", "");
        costRow(rows, r, compared, "lab start to ready", "lab.ready_s", "%.1f s", "<= 8 s");
        r.section("What a deposit costs" + (compared ? ", against " + r.text("compare.ref") + " in the same run" : ""),
                rows.toArray(String[]::new));
    }

    private static void costRow(List<String> rows, Report r, boolean compared, String what, String key, String format,
            String target) {
        if (!r.has(key)) {
            return;
        }
        double value = r.number(key);
        if (!compared) {
            rows.add(row(what, format.formatted(value), target));
            return;
        }
        double other = r.number("compare." + key);
        rows.add(row(what, format.formatted(value), format.formatted(other),
                other == 0 ? "" : "%.2f".formatted(value / other), target));
    }

    /** The table of the README: each figure, its baseline from the same run, the ratio, the target. */
    private static void summary(Report r) {
        if (r.has("cpu.per_deposit_ms")) {
            costSummary(r);
        }
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
        if (rows.size() > 2) {
            r.section("Summary", rows.toArray(String[]::new));
        }
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
