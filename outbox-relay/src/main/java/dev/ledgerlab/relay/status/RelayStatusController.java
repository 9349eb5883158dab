package dev.ledgerlab.relay.status;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
class RelayStatusController {

    private final RelayStatus status;

    RelayStatusController(RelayStatus status) {
        this.status = status;
    }

    @GetMapping("/relay/status")
    RelayStatus.Snapshot status() {
        return status.snapshot();
    }
}
