package dev.ledgerlab.infra;

import java.nio.file.Path;
import java.util.UUID;

/**
 * Test data lives below java.io.tmpdir, not in JUnit's @TempDir nor below target/: @TempDir is private (0700) to the
 * JVM's user, the checkout may be too, and a root JVM runs PostgreSQL as nobody, who could not enter them.
 */
final class TestDirectories {

    private static final Path ROOT = Directories.scratch("infra-test");

    static {
        // Directories of earlier test JVMs: delete those no live JVM holds, stopping any postmaster left in them.
        EmbeddedStack.deleteAbandonedBelow(ROOT);
    }

    private TestDirectories() {
    }

    static Path newDirectory(String name) {
        return ROOT.resolve(EmbeddedStack.ownedName(name) + UUID.randomUUID().toString().substring(0, 8));
    }
}
