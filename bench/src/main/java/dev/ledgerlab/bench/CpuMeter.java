package dev.ledgerlab.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Where a lab's CPU goes, by component, between two readings: every thread of the lab's JVM and every process of its
 * PostgreSQL, read from {@code /proc} (utime + stime of {@code /proc/PID/task/TID/stat} and {@code /proc/PID/stat}),
 * the same counters for both, so that they add up. A thread is put in its component by the name the JVM gave it, which
 * {@code /proc} truncates to 15 characters: the full names come from {@code jcmd PID Thread.print} (its {@code nid} is
 * the thread's id in {@code /proc}), asked once after the second reading so that the dump falls in no window. A
 * PostgreSQL process is put in its component by its process title: its role (walsender, checkpointer, ...) or the role
 * of the service connected to it (each service logs in as a role of its own). CPU of threads that ended between the
 * two readings is the JVM's total less its threads', counted as the JVM's other threads.
 *
 * <p>Hand-written: no library reads another JVM's per-thread CPU together with PostgreSQL's processes by role.
 */
final class CpuMeter {

    /** Components in the order they are reported: the JSON key and what a reader sees. */
    static final Map<String, String> COMPONENTS = components();
    /** Linux reports these in clock ticks of USER_HZ, 100 per second on every common kernel. */
    private static final double TICKS_PER_SECOND = 100.0;
    private static final Pattern THREAD = Pattern.compile("^\"(.*)\" .*\\bnid=(0x[0-9a-f]+|[0-9]+)\\b");
    private static final List<String> BROKER = List.of("data-plane-kafka", "kafka-scheduler", "group-coordinator",
            "controller-", "broker-", "kafka-1-", "quorum-controller", "ExpirationReaper", "kafka-log-cleaner",
            "transaction-log", "share-", "persister-", "executor-", "TxnMarkerSender", "raft-expiration",
            "client-metrics", "SensorExpiryThread", "LogDirFailureHandler", "feature-zk-node", "metrics-meter-tick");
    private static final List<String> VM = List.of("VM Thread", "VM Periodic Task Thread", "GC Thread", "G1 ",
            "Service Thread", "Sweeper thread", "Native Heap Trimmer", "Reference Handler", "Finalizer",
            "Common-Cleaner", "Signal Dispatcher", "Monitor Deflation Thread", "Notification Thread");

    private final long jvm;
    private final Path postmasterPid;
    private final int commandApiPort;

    /** A reading: CPU ticks of the JVM, of each of its threads, and of each PostgreSQL process (with its title). */
    record Reading(long nanos, long jvmTicks, Map<Long, Long> threadTicks, Map<Long, Long> postgresTicks,
            Map<Long, String> postgresTitles) {
    }

    /**
     * @param jvm the lab's JVM
     * @param postgresData the data directory of its PostgreSQL (its postmaster.pid names the server process)
     * @param commandApiPort the command API's port, which its request threads carry in their names
     */
    CpuMeter(long jvm, Path postgresData, int commandApiPort) {
        this.jvm = jvm;
        this.postmasterPid = postgresData.resolve("postmaster.pid");
        this.commandApiPort = commandApiPort;
    }

    Reading read() {
        var threads = new HashMap<Long, Long>();
        try (var tasks = Files.list(Path.of("/proc", Long.toString(jvm), "task"))) {
            for (var task : tasks.toList()) {
                long ticks = ticks(task.resolve("stat"));
                if (ticks >= 0) {
                    threads.put(Long.parseLong(task.getFileName().toString()), ticks);
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot read the threads of " + jvm, e);
        }
        var postgres = new HashMap<Long, Long>();
        var titles = new HashMap<Long, String>();
        long postmaster = postmaster();
        ProcessHandle.of(postmaster).ifPresent(server -> {
            record(server.pid(), postgres, titles);
            server.children().forEach(child -> record(child.pid(), postgres, titles));
        });
        return new Reading(System.nanoTime(), ticks(Path.of("/proc", Long.toString(jvm), "stat")), threads, postgres,
                titles);
    }

    /** Seconds of CPU per component between two readings, in {@link #COMPONENTS}' order. */
    Map<String, Double> between(Reading before, Reading after) {
        var names = threadNames();
        var seconds = new LinkedHashMap<String, Double>();
        COMPONENTS.keySet().forEach(key -> seconds.put(key, 0.0));
        double threads = 0;
        for (var thread : after.threadTicks().entrySet()) {
            long used = thread.getValue() - before.threadTicks().getOrDefault(thread.getKey(), 0L);
            var name = names.getOrDefault(thread.getKey(), comm(thread.getKey()));
            seconds.merge(threadComponent(name), used / TICKS_PER_SECOND, Double::sum);
            threads += used / TICKS_PER_SECOND;
        }
        double ended = (after.jvmTicks() - before.jvmTicks()) / TICKS_PER_SECOND - threads;
        seconds.merge("jvm_other", Math.max(0, ended), Double::sum);
        for (var process : after.postgresTicks().entrySet()) {
            long used = process.getValue() - before.postgresTicks().getOrDefault(process.getKey(), 0L);
            seconds.merge(postgresComponent(after.postgresTitles().get(process.getKey())), used / TICKS_PER_SECOND,
                    Double::sum);
        }
        return seconds;
    }

    /**
     * Seconds of CPU of the whole lab between two readings: its JVM and its PostgreSQL, without placing them by
     * component, so without the thread dump that naming takes (for the labs idling beside the one measured).
     */
    double totalSeconds(Reading before, Reading after) {
        double seconds = Math.max(after.jvmTicks() - before.jvmTicks(), 0) / TICKS_PER_SECOND;
        for (var process : after.postgresTicks().entrySet()) {
            seconds += (process.getValue() - before.postgresTicks().getOrDefault(process.getKey(), 0L))
                    / TICKS_PER_SECOND;
        }
        return seconds;
    }

    /** The component of a thread of the lab's JVM, by its full name. */
    String threadComponent(String name) {
        if (name.startsWith("http-nio-")) {
            return name.contains("-" + commandApiPort + "-") ? "command_api_http" : "other_http";
        }
        if (name.startsWith("debezium-") || name.startsWith("outbox-relay-")) {
            return "relay_engine";
        }
        if (name.startsWith("kafka-producer-network-thread")) {
            return "relay_producer";
        }
        if (name.startsWith("projection-listener-") || name.startsWith("kafka-coordinator-heartbeat-thread")) {
            return "projector_consumers";
        }
        if (name.startsWith("C1 CompilerThread") || name.startsWith("C2 CompilerThread")) {
            return "jit";
        }
        if (VM.stream().anyMatch(name::startsWith)) {
            return "gc_vm";
        }
        if (BROKER.stream().anyMatch(name::startsWith)) {
            return "kafka_broker";
        }
        return "jvm_other";
    }

    /** The component of a PostgreSQL process, by its title ({@code postgres: ROLE DATABASE HOST STATE} or its role). */
    static String postgresComponent(String title) {
        if (title == null) {
            return "postgres_other";
        }
        if (title.startsWith("postgres: walsender ")) {
            return "postgres_walsender";
        }
        if (title.startsWith("postgres: ledger_command_api ")) {
            return "postgres_command_api";
        }
        if (title.startsWith("postgres: ledger_projector ")) {
            return "postgres_projector";
        }
        if (title.startsWith("postgres: ledger_relay ")) {
            return "postgres_relay";
        }
        if (title.startsWith("postgres: walwriter") || title.startsWith("postgres: checkpointer")
                || title.startsWith("postgres: background writer")) {
            return "postgres_writers";
        }
        return "postgres_other";
    }

    private static Map<String, String> components() {
        var components = new LinkedHashMap<String, String>();
        components.put("command_api_http", "command API's request threads (HTTP, Spring MVC, JSON, its JDBC calls)");
        components.put("postgres_command_api", "PostgreSQL backends of the command API");
        components.put("postgres_walsender", "PostgreSQL walsender (logical decoding for the relay)");
        components.put("relay_engine", "relay: Debezium's threads and the relay's engine");
        components.put("relay_producer", "relay: Kafka producer");
        components.put("postgres_relay", "PostgreSQL backends of the relay (offsets, leadership)");
        components.put("kafka_broker", "Kafka broker");
        components.put("projector_consumers", "projector: consumers (parse, apply, commit)");
        components.put("postgres_projector", "PostgreSQL backends of the projector");
        components.put("postgres_writers", "PostgreSQL WAL writer, checkpointer, background writer");
        components.put("postgres_other", "PostgreSQL, other (server, autovacuum)");
        components.put("other_http", "projector's and relay's HTTP threads");
        components.put("jit", "JIT compiler threads");
        components.put("gc_vm", "GC and VM threads");
        components.put("jvm_other", "lab JVM, other threads (metrics, schedulers, pools, ended threads)");
        return components;
    }

    /** Every thread's full name by its id, from a thread dump of the lab's JVM. */
    private Map<Long, String> threadNames() {
        var names = new HashMap<Long, String>();
        try {
            var jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
            var process = new ProcessBuilder(jcmd, Long.toString(jvm), "Thread.print").redirectErrorStream(true)
                    .start();
            var output = new String(process.getInputStream().readAllBytes());
            process.waitFor(30, TimeUnit.SECONDS);
            for (var line : output.lines().toList()) {
                var thread = THREAD.matcher(line);
                if (thread.find()) {
                    var nid = thread.group(2);
                    names.put(nid.startsWith("0x") ? Long.parseLong(nid.substring(2), 16) : Long.parseLong(nid),
                            thread.group(1));
                }
            }
        }
        catch (IOException e) {
            // No names: the truncated ones from /proc still place most threads.
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return names;
    }

    private String comm(long thread) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(jvm), "task", Long.toString(thread), "comm")).strip();
        }
        catch (IOException ended) {
            return "";
        }
    }

    private long postmaster() {
        try {
            return Long.parseLong(Files.readAllLines(postmasterPid).get(0).strip());
        }
        catch (IOException e) {
            throw new UncheckedIOException("no running PostgreSQL at " + postmasterPid, e);
        }
    }

    private static void record(long pid, Map<Long, Long> ticks, Map<Long, String> titles) {
        long used = ticks(Path.of("/proc", Long.toString(pid), "stat"));
        if (used < 0) {
            return;
        }
        ticks.put(pid, used);
        try {
            titles.put(pid, Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).replace('\0', ' ')
                    .strip());
        }
        catch (IOException ended) {
            titles.put(pid, "");
        }
    }

    /** utime + stime of a /proc stat file, in ticks (1/100 s); -1 if the process or thread is gone. */
    static long ticks(Path stat) {
        try {
            var text = Files.readString(stat);
            // After the command name (which may hold spaces, in parentheses): utime and stime are fields 12 and 13.
            var fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        }
        catch (IOException | RuntimeException gone) {
            return -1;
        }
    }
}
