package dev.ledgerlab.commandapi.idempotency;

import java.util.Map;

/** A command's HTTP response as it is stored for replay: status, the headers that matter, and the JSON body. */
public record CommandResponse(int status, Map<String, String> headers, String body, boolean replayed) {

    public CommandResponse {
        headers = Map.copyOf(headers);
    }

    public static CommandResponse of(int status, Map<String, String> headers, String body) {
        return new CommandResponse(status, headers, body, false);
    }
}
