package dev.ledgerlab.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class PostgresBinariesTest {

    @Test
    void unpacksOnceWhenTwoProcessesRace() throws Exception {
        byte[] archive = PostgresBinaries.readArchive();
        Path parent = TestDirectories.newDirectory("binaries");
        CyclicBarrier start = new CyclicBarrier(2);
        List<CompletableFuture<Path>> racers = Stream.generate(() -> CompletableFuture.supplyAsync(() -> {
            try {
                start.await();
            }
            catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return PostgresBinaries.unpack(archive, parent);
        })).limit(2).toList();

        Path first = racers.get(0).get();
        Path second = racers.get(1).get();

        assertThat(first).isEqualTo(second);
        try (Stream<Path> children = Files.list(parent)) {
            assertThat(children).containsExactly(first);
        }
        assertThat(first.resolve("bin/postgres")).isExecutable();
        assertThat(Files.isSymbolicLink(first.resolve("lib/libpq.so"))).isTrue();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(first.resolve("share/postgresql"))))
                .isEqualTo("rwxr-xr-x");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(first)))
                .isEqualTo("rwxr-xr-x");
    }
}
