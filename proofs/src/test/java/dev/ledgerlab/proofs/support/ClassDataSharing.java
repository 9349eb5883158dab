package dev.ledgerlab.proofs.support;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The JVM's own class-data sharing for the service processes: every process of a service maps an archive of the
 * classes its start loads ({@code -XX:SharedArchiveFile}) instead of parsing and verifying them again. Here a
 * service started with it took 4.2-4.6 s of CPU to its readiness and through a short proof, against 14-16 s without.
 *
 * <p>The archive of a service is written before its first process starts, by a training run of the same command
 * line that exits as soon as Spring's context is refreshed, before anything starts working: Spring Framework's
 * {@code -Dspring.context.exit=onRefresh} with the JVM's {@code -XX:ArchiveClassesAtExit}. (Until 2026-12-08 the
 * first process of a service to end normally wrote it, so every process started before that, a proof class's
 * long-lived services and those killed meanwhile, ran without, in both test JVMs: 6 of the first 8 services of a run
 * took 22-39 s of CPU.) A file lock lets one test JVM train while the other waits for its archive.
 *
 * <p>The archive is named after the classpath and its files' modification times, so a rebuild makes a new one. The JVM
 * archives only classes from jars: the services get the test classpath without this module's own classes (they need
 * none of them), and with any other directory on it there is no archive at all.
 */
final class ClassDataSharing {

    private static final Path DIRECTORY = Path.of("target", "proof-cds");
    /** This module's test classes. */
    private static final File OWN = new File(ClassDataSharing.class.getProtectionDomain().getCodeSource().getLocation()
            .getPath()).getAbsoluteFile();
    private static final List<String> CLASSPATH = servicesClasspath();
    /** The JVM archives only classes from jars: with a directory of classes on the classpath (an IDE), no archive. */
    private static final boolean ARCHIVABLE = CLASSPATH.stream().map(File::new)
            .noneMatch(entry -> entry.isDirectory() && entry.list().length > 0);
    /** The classpath and its files' modification times, which name the archives: a rebuild makes new ones. */
    private static final String STAMP = classpathStamp();
    /** One training per service in this JVM: a start that needs the archive while it is trained waits for it. */
    private static final ConcurrentHashMap<String, Object> TRAINING = new ConcurrentHashMap<>();
    /** Services whose training left no archive: their later processes run without one rather than train again. */
    private static final Set<String> UNTRAINED = ConcurrentHashMap.newKeySet();

    private ClassDataSharing() {
    }

    /**
     * The flags for a new process of {@code main}, whose command line is {@code java} ({@code jvm} flags) then
     * {@code command}: the archive, trained first with that command line if there is none yet; none if it cannot be.
     */
    static List<String> flags(String main, List<String> jvm, List<String> command, Path log) {
        if (!ARCHIVABLE) {
            return List.of();
        }
        var archive = archive(main);
        synchronized (TRAINING.computeIfAbsent(main, m -> new Object())) {
            if (!Files.isRegularFile(archive) && !UNTRAINED.contains(main)) {
                train(archive, main, jvm, command, log);
                if (!Files.isRegularFile(archive)) {
                    UNTRAINED.add(main);
                }
            }
        }
        return mapping(archive);
    }

    /** The flag that maps {@code archive}, if it exists. */
    private static List<String> mapping(Path archive) {
        return Files.isRegularFile(archive) ? List.of("-XX:SharedArchiveFile=" + archive.toAbsolutePath()) : List.of();
    }

    /** Runs {@code main} until its context is refreshed, under a lock the other test JVM takes to train it too. */
    private static void train(Path archive, String main, List<String> jvm, List<String> command, Path log) {
        try {
            Files.createDirectories(DIRECTORY);
            try (var lock = FileChannel.open(DIRECTORY.resolve(archive.getFileName() + ".lock"),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE); var held = lock.lock()) {
                if (Files.isRegularFile(archive)) {
                    return;
                }
                var partial = DIRECTORY.resolve(archive.getFileName() + "." + ProcessHandle.current().pid()
                        + ".partial");
                var training = new ArrayList<>(jvm);
                training.add("-XX:ArchiveClassesAtExit=" + partial.toAbsolutePath());
                // Instantiates every singleton (Flyway migrates, as the real start would) and halts before any
                // lifecycle starts: no port bound, no slot streamed, no consumer joined, no command served.
                training.add("-Dspring.context.exit=onRefresh");
                training.addAll(command);
                var trainingLog = log.resolveSibling(log.getFileName() + ".training");
                var process = new ProcessBuilder(training).redirectErrorStream(true)
                        .redirectOutput(trainingLog.toFile()).start();
                if (!process.waitFor(180, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    System.err.printf("training %s for its class archive took more than 180 s: %s%n", main,
                            trainingLog);
                } else if (Files.isRegularFile(partial) && Files.size(partial) > 0) {
                    Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE);
                } else {
                    System.err.printf("training %s left no class archive (exit %d): %s%n", main,
                            process.exitValue(), trainingLog);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Path archive(String main) {
        return DIRECTORY.resolve(main + "-" + STAMP + ".jsa");
    }

    /** The classpath the services run with. */
    static String classpath() {
        return String.join(File.pathSeparator, CLASSPATH);
    }

    /**
     * The classpath of a variant of this module's test sources: the services' classpath, then this module's classes.
     * The JVM maps an archive whose classpath begins the one it runs with, so a variant maps the command API's.
     */
    static String variantClasspath() {
        return classpath() + File.pathSeparator + OWN.getPath();
    }

    /**
     * The flags for a variant ({@link #variantClasspath}): the command API's archive once it is trained (Spring Boot,
     * Kafka's clients, JDBC: most of what a variant loads), never a training of its own, which its classes on a
     * directory would refuse. Each variant took 4.9-5.6 s of CPU through DualWriteProofTest without it.
     */
    static List<String> variantFlags() {
        return mapping(archive(dev.ledgerlab.commandapi.CommandApiApplication.class.getName()));
    }

    /** The test classpath without the classes of this module: the services' jars and their dependencies. */
    private static List<String> servicesClasspath() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !new File(entry).getAbsoluteFile().equals(OWN)).toList();
    }

    private static String classpathStamp() {
        long[] stamp = new long[CLASSPATH.size() * 2];
        for (int i = 0; i < CLASSPATH.size(); i++) {
            stamp[2 * i] = CLASSPATH.get(i).hashCode();
            stamp[2 * i + 1] = new File(CLASSPATH.get(i)).lastModified();
        }
        return Integer.toHexString(Arrays.hashCode(stamp));
    }
}
