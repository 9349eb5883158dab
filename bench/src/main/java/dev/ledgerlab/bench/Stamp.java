package dev.ledgerlab.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Where a run's figures come from: the commit, the machine, the JVM flags and the durability in effect. */
record Stamp(String commit, boolean dirty, Instant at, int cores, long memoryMib, String cpu, String javaVersion,
        List<String> labJvmFlags, String durability) {

    static Stamp now(BenchOptions options) {
        var commit = git("rev-parse", "--short=12", "HEAD");
        var status = git("status", "--porcelain", "--untracked-files=no");
        return new Stamp(commit.isEmpty() ? "unknown" : commit, !status.isEmpty(),
                Instant.now().truncatedTo(ChronoUnit.SECONDS), Runtime.getRuntime().availableProcessors(),
                readMemoryMib(), readCpu(), System.getProperty("java.vm.name") + " " + System.getProperty("java.version"),
                LabProcess.labJvmFlags(), options.durability());
    }

    void into(Report report) {
        report.put("commit", commit).put("dirty", dirty).put("at", at.toString()).put("machine.cores", cores)
                .put("machine.memory_mib", memoryMib).put("machine.cpu", cpu).put("machine.java", javaVersion)
                .put("lab.jvm_flags", labJvmFlags).put("durability.setting", durability);
    }

    /** One line under every chart. */
    String line() {
        return "commit %s%s, %s, %d cores, %,d MiB, %s; lab JVM %s; PostgreSQL %s".formatted(commit,
                dirty ? " (with uncommitted changes)" : "", at, cores, memoryMib, javaVersion,
                labJvmFlags.isEmpty() ? "(JVM defaults)" : String.join(" ", labJvmFlags), durability);
    }

    private static String git(String... args) {
        try {
            var command = new java.util.ArrayList<>(List.of("git"));
            command.addAll(List.of(args));
            var process = new ProcessBuilder(command).redirectErrorStream(true).start();
            var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0 ? output : "";
        }
        catch (IOException e) {
            return "";
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private static long readMemoryMib() {
        return procLine("/proc/meminfo", "MemTotal").map(line -> Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024)
                .orElse(0L);
    }

    private static String readCpu() {
        return procLine("/proc/cpuinfo", "model name").map(line -> line.substring(line.indexOf(':') + 1).strip())
                .orElse(System.getProperty("os.arch"));
    }

    private static Optional<String> procLine(String file, String prefix) {
        try {
            return Files.readAllLines(Path.of(file)).stream().filter(line -> line.startsWith(prefix)).findFirst();
        }
        catch (IOException e) {
            return Optional.empty();
        }
    }
}
