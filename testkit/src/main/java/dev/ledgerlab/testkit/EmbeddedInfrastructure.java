package dev.ledgerlab.testkit;

import dev.ledgerlab.infra.EmbeddedStack;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The embedded stack on free ports in a new directory below {@code <java.io.tmpdir>/ledger-lab-<user>/test-infra}
 * (not below target/: a root JVM runs PostgreSQL as nobody, who may not enter the checkout), without durability: a test JVM
 * that dies takes nothing of value with it.
 */
final class EmbeddedInfrastructure implements RunningInfrastructure {

    private static final Path ROOT = EmbeddedStack.scratchDirectory("test-infra").getParent().resolve("test-infra");

    private final EmbeddedStack stack;

    private EmbeddedInfrastructure(EmbeddedStack stack) {
        this.stack = stack;
    }

    static EmbeddedInfrastructure start() {
        deleteEarlierRuns();
        EmbeddedStack.Settings settings = EmbeddedStack.Settings.under(newRunDirectory("stack"))
                .withFreePorts()
                .withPostgresSetting("fsync", "off")
                .withPostgresSetting("synchronous_commit", "off")
                .withFresh(true);
        return new EmbeddedInfrastructure(EmbeddedStack.start(settings));
    }

    /** A directory of this JVM's own under {@link #ROOT}, named for the time, this JVM and what it holds. */
    static Path newRunDirectory(String what) {
        return ROOT.resolve(EmbeddedStack.ownedName(LocalDateTime.now().format(
                DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))) + what);
    }

    /**
     * Each test JVM gets a new directory; without this, the directory would grow by one cluster per run, and a JVM killed by a
     * timeout would leave its postmaster running for good. Directories of test JVMs still running are theirs.
     */
    private static void deleteEarlierRuns() {
        EmbeddedStack.deleteAbandonedBelow(ROOT);
    }

    @Override
    public Infrastructure infrastructure() {
        return new Infrastructure(stack.postgres().jdbcUrl(), stack.postgres().username(), stack.postgres().password(),
                stack.kafka().bootstrapServers());
    }

    @Override
    public String description() {
        return "PostgreSQL " + stack.postgres().jdbcUrl() + ", Kafka " + stack.kafka().bootstrapServers() + ", data in "
                + stack.settings().baseDirectory();
    }

    @Override
    public void close() {
        stack.close();
    }
}
