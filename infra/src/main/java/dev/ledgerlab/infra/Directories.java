package dev.ledgerlab.infra;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.Set;
import java.util.stream.Stream;

final class Directories {

    private Directories() {
    }

    /**
     * Creates {@code directory} and its missing parents as {@code rwxr-xr-x} whatever the umask: a root JVM runs
     * PostgreSQL as an unprivileged user, who must be able to pass through every directory on the way to its data.
     */
    static void createTraversable(Path directory) throws IOException {
        Path absolute = directory.toAbsolutePath().normalize();
        Path parent = absolute.getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            createTraversable(parent);
        }
        if (!Files.isDirectory(absolute)) {
            Files.createDirectories(absolute);
            Files.setPosixFilePermissions(absolute, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    /**
     * A directory for throw-away stacks (tests) below {@code java.io.tmpdir}, which every user can traverse, unlike a
     * checkout that may sit in a private home or a {@code mktemp -d} directory.
     */
    static Path scratch(String name) {
        return Path.of(System.getProperty("java.io.tmpdir"), "ledger-lab-" + System.getProperty("user.name"), name)
                .toAbsolutePath();
    }

    static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    static void deleteContents(Path directory, Set<String> keep) throws IOException {
        if (!Files.isDirectory(directory)) {
            return;
        }
        try (Stream<Path> children = Files.list(directory)) {
            for (Path child : children.filter(c -> !keep.contains(c.getFileName().toString())).toList()) {
                deleteRecursively(child);
            }
        }
    }
}
