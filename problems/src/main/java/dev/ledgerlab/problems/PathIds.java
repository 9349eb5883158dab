package dev.ledgerlab.problems;

import java.util.UUID;

/** Ids in request paths: a UUID in its 36-character form, or a 400 problem that quotes what came (cut if long). */
public final class PathIds {

    private PathIds() {
    }

    public static UUID accountId(String id) {
        return uuid(id, ProblemType.INVALID_ACCOUNT_ID, "an account id");
    }

    public static UUID transferId(String id) {
        return uuid(id, ProblemType.INVALID_TRANSFER_ID, "a transfer id");
    }

    private static UUID uuid(String id, ProblemType invalid, String what) {
        try {
            if (id.length() == 36) {
                return UUID.fromString(id);
            }
        } catch (IllegalArgumentException e) {
            // same refusal as a wrong length
        }
        var shown = id.length() > 64 ? id.substring(0, 64) + "..." : id;
        throw new ApiProblem(invalid, "\"" + shown + "\" is not " + what + " (a UUID)");
    }
}
