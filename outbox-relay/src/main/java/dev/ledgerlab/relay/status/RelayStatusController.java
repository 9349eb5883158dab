package dev.ledgerlab.relay.status;

import dev.ledgerlab.problems.OperatorAccess;
import dev.ledgerlab.problems.ProblemType;
import dev.ledgerlab.problems.Refusals;
import dev.ledgerlab.relay.capture.Resnapshot;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
class RelayStatusController {

    private final RelayStatus status;
    private final Resnapshot resnapshot;

    RelayStatusController(RelayStatus status, Resnapshot resnapshot) {
        this.status = status;
        this.resnapshot = resnapshot;
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

    /** Operator only (RelayConfiguration): the events table taken again once the slot is lost; see Resnapshot. */
    @PostMapping("/relay/resnapshot")
    @Refusals({ProblemType.SLOT_NOT_LOST, ProblemType.RELAY_NOT_ACTIVE, ProblemType.DATABASE_UNAVAILABLE})
    ResponseEntity<Resnapshot.Result> resnapshot() {
        return ResponseEntity.status(HttpStatus.ACCEPTED).body(resnapshot.run());
    }
}
