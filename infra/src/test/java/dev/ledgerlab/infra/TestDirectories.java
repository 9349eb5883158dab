package dev.ledgerlab.infra;

import java.nio.file.Path;
import java.util.UUID;

/**
 * Test data lives below target/, not in JUnit's @TempDir: that directory is private (0700) to the JVM's user, and a
 * root JVM runs PostgreSQL as nobody, who could not enter it.
 */
final class TestDirectories {

    private TestDirectories() {
    }

    static Path newDirectory(String name) {
        return Path.of("target", "infra-test", name + "-" + UUID.randomUUID().toString().substring(0, 8))
                .toAbsolutePath();
    }
}
