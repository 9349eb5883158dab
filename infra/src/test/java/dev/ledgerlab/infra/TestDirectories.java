package dev.ledgerlab.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Test data lives below java.io.tmpdir, not in JUnit's @TempDir nor below target/: @TempDir is private (0700) to the
 * JVM's user, the checkout may be too, and a root JVM runs PostgreSQL as nobody, who could not enter them.
 */
final class TestDirectories {

    private static final Path ROOT = Directories.scratch("infra-test");

    static {
        // Directories of earlier test JVMs: delete those no live JVM holds, stopping any postmaster left in them.
        if (Files.isDirectory(ROOT)) {
            try (Stream<Path> earlier = Files.list(ROOT)) {
                earlier.filter(Files::isDirectory).forEach(EmbeddedStack::deleteIfAbandoned);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private TestDirectories() {
    }

    static Path newDirectory(String name) {
        return ROOT.resolve(name + "-" + UUID.randomUUID().toString().substring(0, 8));
    }
}
