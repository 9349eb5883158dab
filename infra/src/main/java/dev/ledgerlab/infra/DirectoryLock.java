package dev.ledgerlab.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock that keeps two live JVMs from running servers on the same directories.
 *
 * <p>The operating system drops the lock when its JVM dies, even by {@code kill -9}, so a stale lock file never blocks a
 * restart; the servers such a JVM left behind are dealt with by whoever takes the lock next.
 */
record DirectoryLock(Path file, FileChannel channel, FileLock lock) implements AutoCloseable {

    static DirectoryLock acquire(Path file) {
        try {
            Directories.createTraversable(file.getParent());
            FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            }
            catch (OverlappingFileLockException sameJvm) {
                lock = null;
            }
            if (lock == null) {
                String holder = readHolder(channel);
                channel.close();
                throw new IllegalStateException(file.getParent() + " is in use by another running embedded stack ("
                        + holder + ", lock file " + file + "). Stop that process first, or use another directory.");
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(("pid " + ProcessHandle.current().pid() + "\n")
                    .getBytes(StandardCharsets.US_ASCII)), 0);
            return new DirectoryLock(file, channel, lock);
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot lock " + file, e);
        }
    }

    private static String readHolder(FileChannel channel) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(64);
        channel.read(buffer, 0);
        String text = new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII).trim();
        return text.isEmpty() ? "holder unknown" : text;
    }

    @Override
    public void close() {
        try {
            lock.release();
            channel.close();
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot release " + file, e);
        }
    }
}
