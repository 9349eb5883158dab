package dev.ledgerlab.proofs.support;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The JVM's own class-data sharing for the service processes: the first process of each service that ends normally
 * leaves an archive of the classes it loaded ({@code -XX:ArchiveClassesAtExit}), and every later one maps it
 * ({@code -XX:SharedArchiveFile}) instead of parsing and verifying those classes again. A Spring Boot service started
 * this way was ready in ~2.7 s instead of ~4.6 s here, which is most of what the proofs wait for.
 *
 * <p>The archive is named after the classpath and its files' modification times, so a rebuild makes a new one; a
 * process that is killed leaves none, and the next one tries again. One process at a time writes each. The JVM
 * archives only classes from jars: the services get the test classpath without this module's own classes (they need
 * none of them), and with any other directory on it there is no archive at all.
 */
final class ClassDataSharing {

    private static final Path DIRECTORY = Path.of("target", "proof-cds");
    private static final Set<String> DUMPING = new HashSet<>();
    private static final List<String> CLASSPATH = servicesClasspath();

    private ClassDataSharing() {
    }

    /** The flags for a new process of {@code main}: use the archive, or write it, or (while another writes it) none. */
    static synchronized List<String> flags(String main) {
        if (CLASSPATH.stream().map(File::new).anyMatch(entry -> entry.isDirectory() && entry.list().length > 0)) {
            return List.of();
        }
        var archive = archive(main);
        if (Files.isRegularFile(archive)) {
            return List.of("-XX:SharedArchiveFile=" + archive.toAbsolutePath());
        }
        if (DUMPING.add(main)) {
            try {
                Files.createDirectories(DIRECTORY);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return List.of("-XX:ArchiveClassesAtExit=" + partial(main).toAbsolutePath());
        }
        return List.of();
    }

    /** Called once a process of {@code main} started with these flags has exited: keeps a complete archive. */
    static synchronized void exited(String main, List<String> flags) {
        if (flags.stream().noneMatch(flag -> flag.startsWith("-XX:ArchiveClassesAtExit="))) {
            return;
        }
        DUMPING.remove(main);
        var partial = partial(main);
        try {
            // Written at the exit of a process that ended normally; absent after a kill or a halt.
            if (Files.isRegularFile(partial) && Files.size(partial) > 0) {
                Files.move(partial, archive(main), StandardCopyOption.ATOMIC_MOVE);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Written by one process of this JVM at a time; another test JVM running beside it writes its own. */
    private static Path partial(String main) {
        return DIRECTORY.resolve(main + "-" + classpathStamp() + "-" + ProcessHandle.current().pid() + ".jsa.partial");
    }

    private static Path archive(String main) {
        return DIRECTORY.resolve(main + "-" + classpathStamp() + ".jsa");
    }

    /** The classpath the services run with. */
    static String classpath() {
        return String.join(File.pathSeparator, CLASSPATH);
    }

    /** The test classpath without the classes of this module: the services' jars and their dependencies. */
    private static List<String> servicesClasspath() {
        var own = new File(ClassDataSharing.class.getProtectionDomain().getCodeSource().getLocation().getPath())
                .getAbsoluteFile();
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !new File(entry).getAbsoluteFile().equals(own)).toList();
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
