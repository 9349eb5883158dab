package dev.ledgerlab.relay.status;

import dev.ledgerlab.problems.OperatorAccess;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
class RelayStatusController {

    private final RelayStatus status;

    RelayStatusController(RelayStatus status) {
        this.status = status;
    }

    /** The last engine error only to the operator: it can carry connector settings. */
    @GetMapping("/relay/status")
    RelayStatus.Snapshot status(Authentication caller) {
        var snapshot = status.snapshot();
        if (snapshot.lastEngineError() == null || OperatorAccess.isOperator(caller)) {
            return snapshot;
        }
        return snapshot.withLastEngineError("(shown to the operator only)");
    }
}
