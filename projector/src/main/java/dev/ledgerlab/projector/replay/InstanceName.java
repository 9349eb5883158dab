package dev.ledgerlab.projector.replay;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** Which process asked for a run: host and pid, recorded in projection.replays.requested_by. */
final class InstanceName {

    private InstanceName() {
    }

    static String of() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "unknown-host";
        }
        return "projector@" + host + ":" + ProcessHandle.current().pid();
    }
}
