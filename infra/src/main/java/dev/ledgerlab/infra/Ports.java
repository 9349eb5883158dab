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

    static int free() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
            return socket.getLocalPort();
        }
        catch (IOException e) {
            throw new UncheckedIOException("no free port on " + LOOPBACK, e);
        }
    }
}
