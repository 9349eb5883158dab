package dev.ledgerlab.lab.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What {@code ./ledger-lab bench} was asked to do.
 *
 * @param what   {@code all} (the suite), {@code commands}, {@code relay}, {@code replay} (one part of it), or an
 *               experiment: {@code producer}, {@code rebalance}
 * @param quick  shorter windows and fewer configurations: a check in under five minutes, not figures to publish
 * @param fsync  PostgreSQL's fsync and synchronous_commit, on as the lab runs it unless told otherwise
 * @param out    where the results go
 * @param profile  record a Java Flight Recorder profile of every process measured, in DIR/profiles
 */
record BenchOptions(String what, boolean quick, boolean fsync, Path out, boolean profile) {

    private static final AtomicInteger PROFILES = new AtomicInteger();

    static final String USAGE = """
            Usage: ./ledger-lab bench [--quick] [--fsync=off] [--out=DIR] [--profile] [all|commands|relay|replay|producer|rebalance]
              all        the whole suite (default): commands, end-to-end latency, relay drain, replay, lab start and
                         memory, each against its baseline measured in the same run; writes DIR/latest.json, .md, .png
              commands   only the command path: throughput, latency, end to end, lab start and memory
              relay      only the relay's backlog drain against a bare Debezium engine and a bare producer
              replay     only the replay against a bare consumer
              producer   the relay's producer at linger.ms 0/10/100 and four compressions (experiment)
              rebalance  three projectors, one killed, under three rebalance protocols (experiment)
              --quick    short windows, fewer configurations (under 5 minutes for the suite)
              --fsync=off  PostgreSQL without fsync and synchronous_commit (the results say so)
              --out=DIR  default bench-results
              --profile  a Java Flight Recorder profile of each process measured (lab, relay, bare engine),
                         DIR/profiles/<process>-<n>.jfr; read with jfr print --events jdk.ExecutionSample
            """;

    static BenchOptions parse(String... args) {
        String what = "all";
        boolean quick = false;
        boolean fsync = true;
        Path out = Path.of("bench-results");
        boolean profile = false;
        for (var arg : args) {
            if (arg.equals("--quick")) {
                quick = true;
            }
            else if (arg.equals("--fsync=off") || arg.equals("--fsync=on")) {
                fsync = arg.endsWith("on");
            }
            else if (arg.startsWith("--out=")) {
                out = Path.of(arg.substring("--out=".length()));
            }
            else if (arg.equals("--profile")) {
                profile = true;
            }
            else if (List.of("all", "commands", "relay", "replay", "producer", "rebalance").contains(arg)) {
                what = arg;
            }
            else {
                throw new IllegalArgumentException("unknown argument " + arg + "\n" + USAGE);
            }
        }
        return new BenchOptions(what, quick, fsync, out, profile);
    }

    Duration warmup() {
        return quick ? Duration.ofSeconds(2) : Duration.ofSeconds(5);
    }

    Duration window() {
        return quick ? Duration.ofSeconds(3) : Duration.ofSeconds(10);
    }

    /** The longest a lab is warmed up before its figures count. */
    Duration warmUpLimit() {
        return quick ? Duration.ofSeconds(45) : Duration.ofMinutes(5);
    }

    Duration warmUpWindow() {
        return quick ? Duration.ofSeconds(5) : Duration.ofSeconds(10);
    }

    /** Each measurement is repeated at least this often; figures are medians. */
    int repetitions() {
        return 3;
    }

    List<Integer> clients() {
        return quick ? List.of(64) : List.of(1, 16, 64);
    }

    Duration latencyRun() {
        return quick ? Duration.ofSeconds(5) : Duration.ofSeconds(20);
    }

    /** Deposits into a fresh lab before its resident memory is read. */
    int depositsBeforeMemory() {
        return quick ? 20_000 : 100_000;
    }

    int relayBacklog() {
        return quick ? 20_000 : 100_000;
    }

    int replayEvents() {
        return quick ? 200_000 : 1_000_000;
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
