package dev.ledgerlab.infra;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The operating-system user that PostgreSQL runs as.
 *
 * <p>PostgreSQL refuses to run as root ({@code initdb: cannot be run as root}). A root JVM therefore runs initdb and
 * pg_ctl through {@code setpriv}, as the owner of an existing data directory or, for a new one, as nobody (65534). The
 * uid must not change between starts of the same data directory, or PostgreSQL later fails on its own files with
 * "Permission denied"; taking it from the directory's owner keeps it stable. A JVM that is not root runs the binaries
 * as itself.
 */
record OsUser(int uid, int gid, boolean dropsPrivileges) {

    static final int NOBODY = 65534;

    static OsUser forDataDirectory(Path dataDirectory) {
        if (currentUid() != 0) {
            return new OsUser(currentUid(), -1, false);
        }
        if (Files.isDirectory(dataDirectory)) {
            int owner = ownerUid(dataDirectory);
            if (owner != 0) {
                int group = attribute(dataDirectory, "unix:gid");
                return new OsUser(owner, group == 0 ? NOBODY : group, true);
            }
            if (Files.exists(dataDirectory.resolve("PG_VERSION"))) {
                throw new IllegalStateException("The PostgreSQL data directory " + dataDirectory + " is owned by root, "
                        + "but PostgreSQL cannot run as root. Give it to an unprivileged user (chown -R nobody:nogroup "
                        + dataDirectory + ") or delete it to start afresh.");
            }
        }
        return new OsUser(NOBODY, NOBODY, true);
    }

    List<String> command(Path executable, List<String> arguments) {
        List<String> command = new ArrayList<>();
        if (dropsPrivileges) {
            command.addAll(List.of("setpriv", "--reuid=" + uid, "--regid=" + gid, "--clear-groups"));
        }
        command.add(executable.toString());
        command.addAll(arguments);
        return command;
    }

    /**
     * Hands a file or directory the root JVM created to the user PostgreSQL runs as.
     */
    void own(Path path) {
        if (!dropsPrivileges) {
            return;
        }
        try {
            if (ownerUid(path) != uid) {
                Files.setAttribute(path, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
                Files.setAttribute(path, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot give " + path + " to uid " + uid, e);
        }
    }

    /**
     * Fails with a message naming the directory when the unprivileged user cannot enter {@code directory} or one of its
     * ancestors, which PostgreSQL would otherwise report as an obscure "could not change directory" or "Permission
     * denied".
     */
    void requireTraversable(Path directory, String purpose) {
        if (!dropsPrivileges) {
            return;
        }
        for (Path dir = directory.toAbsolutePath().normalize(); dir != null; dir = dir.getParent()) {
            if (!Files.isDirectory(dir)) {
                continue;
            }
            if (!canEnter(dir)) {
                throw new IllegalStateException("PostgreSQL runs as uid " + uid + " because this JVM runs as root, but uid "
                        + uid + " cannot enter " + dir + " (" + describe(dir) + ") on the way to the " + purpose + " "
                        + directory + ". Use a directory that every user can traverse (e.g. below /tmp or /var/tmp), "
                        + "allow it with 'chmod o+x " + dir + "', or run the JVM as a non-root user.");
            }
        }
    }

    private boolean canEnter(Path dir) {
        try {
            Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(dir);
            if (attribute(dir, "unix:uid") == uid) {
                return permissions.contains(PosixFilePermission.OWNER_EXECUTE);
            }
            if (attribute(dir, "unix:gid") == gid) {
                return permissions.contains(PosixFilePermission.GROUP_EXECUTE);
            }
            return permissions.contains(PosixFilePermission.OTHERS_EXECUTE);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String describe(Path dir) {
        try {
            return PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)) + " owned by uid "
                    + attribute(dir, "unix:uid") + ", gid " + attribute(dir, "unix:gid");
        }
        catch (IOException e) {
            return "permissions unreadable";
        }
    }

    static int currentUid() {
        return (int) new UnixSystem().getUid();
    }

    static int ownerUid(Path path) {
        return attribute(path, "unix:uid");
    }

    private static int attribute(Path path, String name) {
        try {
            return (Integer) Files.getAttribute(path, name, LinkOption.NOFOLLOW_LINKS);
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot read " + name + " of " + path, e);
        }
    }
}
