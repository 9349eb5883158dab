package dev.ledgerlab.projector.operate;

import dev.ledgerlab.problems.ApiProblem;
import dev.ledgerlab.problems.PathIds;
import dev.ledgerlab.problems.ProblemType;
import dev.ledgerlab.problems.Refusals;
import dev.ledgerlab.projector.apply.ParkedAccounts;
import dev.ledgerlab.projector.invariants.InvariantChecker;
import java.util.List;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Refusals(ProblemType.DATABASE_UNAVAILABLE)
public class OperatorController {

    private final ProjectionStatus status;
    private final ParkedAccounts parked;
    private final InvariantChecker invariants;

    public OperatorController(ProjectionStatus status, ParkedAccounts parked, InvariantChecker invariants) {
        this.status = status;
        this.parked = parked;
        this.invariants = invariants;
    }

    /** Run it once the pipeline is quiet: {@code ok} with no violations, or each violation precisely. */
    @GetMapping(path = "/projection/invariants", produces = MediaType.APPLICATION_JSON_VALUE)
    @Refusals({ProblemType.OPERATOR_CREDENTIALS_REQUIRED, ProblemType.OPERATOR_NOT_CONFIGURED})
    public InvariantChecker.Report invariants() {
        return invariants.check();
    }

    @GetMapping(path = "/projection/status", produces = MediaType.APPLICATION_JSON_VALUE)
    public ProjectionStatus.Status status() {
        return status.current();
    }

    @GetMapping(path = "/projection/parked", produces = MediaType.APPLICATION_JSON_VALUE)
    public List<ParkedAccounts.Parked> parked() {
        return parked.list();
    }

    @PostMapping(path = "/projection/parked/{id}/release", produces = MediaType.APPLICATION_JSON_VALUE)
    @Refusals({ProblemType.OPERATOR_CREDENTIALS_REQUIRED, ProblemType.OPERATOR_NOT_CONFIGURED, ProblemType.INVALID_ACCOUNT_ID, ProblemType.ACCOUNT_NOT_PARKED, ProblemType.REBUILD_IN_PROGRESS, ProblemType.UNKNOWN_SCHEMA_VERSION, ProblemType.EVENT_STILL_MISSING})
    public ParkedAccounts.Released release(@PathVariable("id") String id) {
        var accountId = PathIds.accountId(id);
        try {
            return parked.release(accountId).orElseThrow(() -> new ApiProblem(ProblemType.ACCOUNT_NOT_PARKED,
                    "account " + id + " is not parked"));
        } catch (ParkedAccounts.RebuildRunning e) {
            throw new ApiProblem(ProblemType.REBUILD_IN_PROGRESS, e.getMessage());
        } catch (ParkedAccounts.UnknownVersionHeld e) {
            throw new ApiProblem(ProblemType.UNKNOWN_SCHEMA_VERSION, e.getMessage());
        } catch (ParkedAccounts.StillMissing e) {
            throw new ApiProblem(ProblemType.EVENT_STILL_MISSING, e.getMessage(),
                    Map.of("expectedVersion", e.expectedVersion(), "firstHeldVersion", e.firstHeldVersion()));
        }
    }
}
