package dev.ledgerlab.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Port checks done before a server starts, so that a taken port fails with a plain message instead of a server log line
 * and, worse, a client never talks to whatever else answers on that port.
 */
final class Ports {

    /**
     * Every server listens on the IPv4 loopback only: "localhost" may also resolve to ::1, where another process could
     * answer on the same port number.
     */
    static final String LOOPBACK = "127.0.0.1";

    private Ports() {
    }

    static void requireFree(int port, String server) {
        if (port <= 0 || port > 65535) {
            throw new IllegalArgumentException(server + " needs a fixed port between 1 and 65535, got " + port);
        }
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(InetAddress.getByName(LOOPBACK), port));
        }
        catch (IOException e) {
            throw new IllegalStateException("port " + port + " is in use by another process, so " + server
                    + " cannot listen on " + LOOPBACK + ":" + port + ". Stop that process or choose another port.", e);
        }
    }

    /**
     * {@code count} ports that are free right now, all different: every probe socket stays open until all are
     * chosen, so the kernel cannot offer one twice.
     */
    static int[] free(int count) {
        var sockets = new java.util.ArrayList<ServerSocket>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                var socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK));
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        }
        catch (IOException e) {
            throw new UncheckedIOException("no free ports on " + LOOPBACK, e);
        }
        finally {
            for (var socket : sockets) {
                try {
                    socket.close();
                }
                catch (IOException ignored) {
                    // closing a probe socket cannot lose anything
                }
            }
        }
    }

    /**
     * A port free right now below the kernel's ephemeral range, for a server another process will bind later, tens of
     * seconds later on a busy machine: a port from the ephemeral range ({@link #free()}) may meanwhile become the
     * local end of any outgoing connection (a JDBC or Kafka client's), and the server then fails to start ("Port ...
     * was already in use", seen in a proof). Below the range only another listener can take it.
     */
    static int freeBelowEphemeralRange(java.util.Random random) {
        int lowest = 10_000;
        int ephemeralStart = Math.max(ephemeralRangeStart(), lowest + 1_000);
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = lowest + random.nextInt(Math.max(1, ephemeralStart - lowest));
            try (ServerSocket probe = new ServerSocket()) {
                probe.bind(new InetSocketAddress(InetAddress.getByName(LOOPBACK), port));
                return port;
            }
            catch (IOException taken) {
                // another listener has it: try another
            }
        }
        return free();
    }

    /** The first port of the kernel's ephemeral range (Linux's /proc), or the usual 32768. */
    private static int ephemeralRangeStart() {
        // One read of a whole buffer: a sysctl file answers a read from a later offset with nothing, and
        // Files.readString of this file here read one byte ("3").
        try (var in = java.nio.file.Files.newInputStream(java.nio.file.Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
            var range = new String(in.readNBytes(64), java.nio.charset.StandardCharsets.US_ASCII).trim();
            return Integer.parseInt(range.split("\\s+")[0]);
        }
        catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }

    static int free() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
            return socket.getLocalPort();
        }
        catch (IOException e) {
            throw new UncheckedIOException("no free port on " + LOOPBACK, e);
        }
    }
}
