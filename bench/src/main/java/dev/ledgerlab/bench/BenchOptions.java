package dev.ledgerlab.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What {@code ./ledger-lab bench} was asked to do.
 *
 * @param what   {@code all} (the suite), {@code commands}, {@code relay}, {@code replay} (one part of it), or an
 *               experiment: {@code producer}, {@code rebalance}
 * @param quick  shorter windows and fewer configurations: a check in under five minutes, not figures to publish
 * @param fsync  PostgreSQL's fsync and synchronous_commit, on as the lab runs it unless told otherwise
 * @param out    where the results go
 * @param profile  record a Java Flight Recorder profile of every process measured, in DIR/profiles
 * @param compare  another commit (anything {@code git rev-parse} takes) whose lab is measured beside this one's in
 *                 the same run, or null
 */
record BenchOptions(String what, boolean quick, boolean fsync, Path out, boolean profile, String compare) {

    private static final AtomicInteger PROFILES = new AtomicInteger();

    private static final List<String> PARTS = List.of("all", "cost", "commands", "relay", "replay", "producer",
            "rebalance");

    /** The command line as picocli reads it; {@link #parse} checks what depends on two options at once. */
    @Command(name = "./ledger-lab bench", sortOptions = false, usageHelpWidth = 118, footer = {"",
        "Parts: all (default): the whole suite: what a deposit costs, commands, end-to-end latency, relay drain,",
        "         replay, lab start and memory, each against its baseline measured in the same run;",
        "         writes DIR/latest.json, .md, .png",
        "       cost: CPU per deposit by component at 64 clients, deposits/s against PostgreSQL alone and beside",
        "         the pipeline, the first minute, the relay's distance behind, end to end at a fixed 300/s",
        "       commands: the command path: throughput, latency, end to end, lab start and memory",
        "       relay: the relay's backlog drain against a bare Debezium engine and a bare producer",
        "       replay: the replay against a bare consumer",
        "       producer: the relay's producer at linger.ms 0/10/100 and four compressions (experiment)",
        "       rebalance: three projectors, one killed, under three rebalance protocols (experiment)"})
    static final class Cli {

        @Parameters(arity = "0..1", paramLabel = "PART", description = "all, cost, commands, relay, replay, "
                + "producer or rebalance (below)")
        String what;

        @Option(names = "--quick", description = "what a deposit costs, short windows (under 5 minutes; twice the "
                + "labs' part with --compare); with a part named, that part with short windows and fewer configurations")
        boolean quick;

        @Option(names = "--compare", paramLabel = "REF", description = "build commit REF in a git work tree and "
                + "measure its lab beside this one's, alternately, in the same run (what a deposit costs)")
        String compare;

        @Option(names = "--fsync", paramLabel = "on|off", description = "off: PostgreSQL without fsync and "
                + "synchronous_commit (the results say so); default on")
        String fsync = "on";

        @Option(names = "--out", paramLabel = "DIR", description = "default ${DEFAULT-VALUE}")
        Path out = Path.of("bench-results");

        @Option(names = "--profile", description = "a Java Flight Recorder profile of each process measured (lab, "
                + "relay, bare engine), DIR/profiles/<process>-<n>.jfr; read with jfr print --events "
                + "jdk.ExecutionSample")
        boolean profile;

        @Option(names = {"-h", "--help"}, usageHelp = true, description = "this text")
        boolean help;
    }

    static final String USAGE = new CommandLine(new Cli()).getUsageMessage(CommandLine.Help.Ansi.OFF);

    static BenchOptions parse(String... args) {
        var cli = new Cli();
        // As the lab's options: an option given twice takes its last value, as before picocli.
        var line = new CommandLine(cli).setOverwrittenOptionsAllowed(true);
        try {
            line.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new IllegalArgumentException(e.getMessage() + "\n" + USAGE, e);
        }
        if (line.isUsageHelpRequested()) {
            throw new IllegalArgumentException(USAGE);
        }
        if (cli.what != null && !PARTS.contains(cli.what)) {
            throw new IllegalArgumentException("unknown argument " + cli.what + "\n" + USAGE);
        }
        if (!List.of("on", "off").contains(cli.fsync)) {
            throw new IllegalArgumentException("--fsync takes on or off, not " + cli.fsync + "\n" + USAGE);
        }
        if (cli.compare != null && cli.compare.isBlank()) {
            throw new IllegalArgumentException("--compare needs a commit\n" + USAGE);
        }
        var what = cli.what != null ? cli.what : cli.quick ? "cost" : "all";
        if (cli.compare != null && !List.of("all", "cost").contains(what)) {
            throw new IllegalArgumentException("--compare measures what a deposit costs: with all or cost only\n"
                    + USAGE);
        }
        return new BenchOptions(what, cli.quick, cli.fsync.equals("on"), cli.out, cli.profile, cli.compare);
    }

    /** How long and how large each part runs: {@link Scale#QUICK} with {@code --quick}, else {@link Scale#FULL}. */
    Scale scale() {
        return quick ? Scale.QUICK : Scale.FULL;
    }

    /** Each measurement is repeated at least this often; figures are medians. */
    int repetitions() {
        return 3;
    }

    /**
     * The windows and sizes of a run.
     *
     * @param warmup               closed-loop warm-up before each measured window
     * @param window               a closed-loop measured window
     * @param warmUpLimit          the longest a lab is warmed up before its figures count
     * @param warmUpWindow         a window of the warm-up's own measurement
     * @param clients              the closed loop's client counts
     * @param costWindow           the measured window of each round of the cost suite, at 64 clients
     * @param fixedRateRun         how long the cost suite's open loop runs at a fixed 300 deposits per second
     * @param latencyRun           an open loop's run for end-to-end latency
     * @param depositsBeforeMemory deposits into a fresh lab before its resident memory is read
     * @param relayBacklog         the backlog the relay drains
     * @param replayEvents         the events a replay rebuilds from
     */
    record Scale(Duration warmup, Duration window, Duration warmUpLimit, Duration warmUpWindow, List<Integer> clients,
            Duration costWindow, Duration fixedRateRun, Duration latencyRun, int depositsBeforeMemory,
            int relayBacklog, int replayEvents) {

        static final Scale QUICK = new Scale(Duration.ofSeconds(2), Duration.ofSeconds(3), Duration.ofSeconds(45),
                Duration.ofSeconds(5), List.of(64), Duration.ofSeconds(8), Duration.ofSeconds(10),
                Duration.ofSeconds(5), 20_000, 20_000, 200_000);

        static final Scale FULL = new Scale(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofMinutes(5),
                Duration.ofSeconds(10), List.of(1, 16, 64), Duration.ofSeconds(20), Duration.ofSeconds(30),
                Duration.ofSeconds(20), 100_000, 100_000, 1_000_000);
    }

    String durability() {
        return fsync ? "fsync on, synchronous_commit on" : "fsync off, synchronous_commit off (told so: not the lab's own)";
    }

    List<String> postgresArguments() {
        return fsync ? List.of() : List.of("--postgres-setting=fsync=off", "--postgres-setting=synchronous_commit=off");
    }

    /**
     * The flags that record a profile of one measured process ({@code --profile}): the whole run at the profile
     * settings, written when the process stops, one file per process (JDK 17's file names take no process id).
     */
    List<String> profileFlags(String process) {
        if (!profile) {
            return List.of();
        }
        var directory = out.toAbsolutePath().resolve("profiles");
        try {
            Files.createDirectories(directory);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        var file = directory.resolve(process + "-" + PROFILES.incrementAndGet() + ".jfr");
        return List.of("-XX:StartFlightRecording=filename=" + file + ",settings=profile");
    }
}
