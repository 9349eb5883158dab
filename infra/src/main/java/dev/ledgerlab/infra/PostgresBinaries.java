package dev.ledgerlab.infra;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL installation unpacked from zonky's binaries artifact, shared by every JVM of the same user.
 *
 * <p>The directory name carries a hash of the archive, so a new binaries version lands beside the old one and a
 * directory, once it exists, is complete: it appears only by an atomic rename of a fully unpacked temporary directory.
 */
final class PostgresBinaries {

    private static final Logger log = LoggerFactory.getLogger(PostgresBinaries.class);

    private static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwxr-xr-x");
    private static final String PARTIAL = ".partial-";

    private static Path installed;

    private PostgresBinaries() {
    }

    /**
     * The unpacked installation (with {@code bin/}, {@code lib/}, {@code share/}), unpacked on first use.
     */
    static synchronized Path home() {
        if (installed == null) {
            Path parent = Path.of(System.getProperty("java.io.tmpdir"), "ledger-lab-" + System.getProperty("user.name"));
            installed = unpack(readArchive(), parent);
        }
        return installed;
    }

    static Path executable(Path home, String name) {
        return home.resolve("bin").resolve(name);
    }

    static byte[] readArchive() {
        String os = System.getProperty("os.name");
        String system = os.startsWith("Mac") ? "Darwin" : os.startsWith("Linux") ? "Linux" : os;
        try (InputStream in = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(system, System.getProperty("os.arch"))) {
            return in.readAllBytes();
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot read the PostgreSQL binaries archive from the classpath", e);
        }
    }

    /**
     * Unpacks {@code archive} (a tar.xz) below {@code parent} unless an earlier run, or a concurrent JVM, already has.
     */
    static Path unpack(byte[] archive, Path parent) {
        Path target = parent.resolve("postgres-" + shortHash(archive));
        if (Files.isDirectory(target)) {
            return target;
        }
        try {
            Files.createDirectories(parent);
            makeTraversable(parent);
            removeAbandonedPartials(parent);
            Path partial = Files.createTempDirectory(parent, target.getFileName() + PARTIAL);
            long started = System.nanoTime();
            extract(archive, partial);
            Files.setPosixFilePermissions(partial, DIRECTORY);
            try {
                Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
                log.info("Unpacked PostgreSQL binaries to {} in {} ms", target, (System.nanoTime() - started) / 1_000_000);
            }
            catch (FileSystemException lostTheRace) {
                if (!Files.isDirectory(target)) {
                    throw lostTheRace;
                }
                Directories.deleteRecursively(partial);
            }
            return target;
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot unpack the PostgreSQL binaries to " + target, e);
        }
    }

    private static void extract(byte[] archive, Path root) throws IOException {
        try (TarArchiveInputStream tar = new TarArchiveInputStream(
                new XZCompressorInputStream(new ByteArrayInputStream(archive)))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Path path = root.resolve(entry.getName()).normalize();
                if (!path.startsWith(root)) {
                    throw new IOException("archive entry escapes the target directory: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(path);
                    Files.setPosixFilePermissions(path, DIRECTORY);
                    continue;
                }
                Files.createDirectories(path.getParent());
                Files.setPosixFilePermissions(path.getParent(), DIRECTORY);
                if (entry.isSymbolicLink()) {
                    Files.createSymbolicLink(path, Path.of(entry.getLinkName()));
                }
                else if (entry.isLink()) {
                    Files.createLink(path, root.resolve(entry.getLinkName()).normalize());
                }
                else {
                    Files.copy(tar, path);
                    // The archive's own modes keep the exec bits; other users need read (and exec) because a root JVM
                    // runs the server as an unprivileged user.
                    Files.setPosixFilePermissions(path, permissions(entry.getMode() | 0444));
                }
            }
        }
    }

    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> permissions = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] bits = {
                PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
                PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
                PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ};
        for (int bit = 0; bit < bits.length; bit++) {
            if ((mode & (1 << bit)) != 0) {
                permissions.add(bits[bit]);
            }
        }
        return permissions;
    }

    private static void makeTraversable(Path directory) throws IOException {
        if (OsUser.ownerUid(directory) == OsUser.currentUid()) {
            Files.setPosixFilePermissions(directory, DIRECTORY);
        }
    }

    /**
     * A JVM killed while unpacking leaves its temporary directory; one older than any unpack could take is abandoned.
     */
    private static void removeAbandonedPartials(Path parent) throws IOException {
        Instant abandoned = Instant.now().minus(Duration.ofMinutes(30));
        try (Stream<Path> children = Files.list(parent)) {
            for (Path child : children.filter(p -> p.getFileName().toString().contains(PARTIAL)).toList()) {
                FileTime modified = Files.getLastModifiedTime(child);
                if (modified.toInstant().isBefore(abandoned)) {
                    Directories.deleteRecursively(child);
                }
            }
        }
    }

    private static String shortHash(byte[] archive) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(archive);
            return HexFormat.of().formatHex(digest, 0, 8);
        }
        catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
