package dev.ledgerlab.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class PostgresServerSettingsTest {

    @Test
    void readsTheSettingsThatTheDbModuleShips() throws Exception {
        Path root = TestDirectories.newDirectory("settings");
        Files.createDirectories(root.resolve("db"));
        Files.writeString(root.resolve("db/postgresql.properties"), """
                # owned by the db module
                wal_level=logical
                max_slot_wal_keep_size=4GB
                """);

        Map<String, String> settings = withClasspath(new URL[] {root.toUri().toURL()},
                PostgresServerSettings::fromClasspath);

        assertThat(settings).containsExactly(Map.entry("max_slot_wal_keep_size", "4GB"), Map.entry("wal_level", "logical"));
    }

    @Test
    void refusesToGuessWithoutTheDbModule() {
        assertThatThrownBy(() -> withClasspath(new URL[0], PostgresServerSettings::fromClasspath))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(PostgresServerSettings.RESOURCE);
    }

    @Test
    void asksForLogicalWalAndABoundOnRetainedWal() {
        assertThat(PostgresServerSettings.fromClasspath())
                .containsEntry("wal_level", "logical")
                .containsKeys("max_replication_slots", "max_wal_senders", "max_slot_wal_keep_size");
    }

    @Test
    void rendersSettingsAsPostgresCommandLineOptions() {
        assertThat(PostgresServerSettings.asCommandLine(Map.of("wal_level", "logical")))
                .containsExactly("-c", "wal_level=logical");
    }

    private static <T> T withClasspath(URL[] urls, Supplier<T> action) {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader())) {
            thread.setContextClassLoader(loader);
            return action.get();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        finally {
            thread.setContextClassLoader(previous);
        }
    }
}
