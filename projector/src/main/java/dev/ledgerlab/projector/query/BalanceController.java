package dev.ledgerlab.projector.query;

import dev.ledgerlab.problems.ApiProblem;
import dev.ledgerlab.problems.PathIds;
import dev.ledgerlab.problems.ProblemType;
import dev.ledgerlab.problems.Refusals;
import dev.ledgerlab.projector.query.BalanceQueries.BalanceView;
import dev.ledgerlab.projector.query.BalanceQueries.ProjectedTotal;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The projection's reads over HTTP: an account's balance, read-your-writes on a version, the total. */
@RestController
@Refusals(ProblemType.DATABASE_UNAVAILABLE)
public class BalanceController {

    private final BalanceQueries queries;
    private final ReadYourWrites readYourWrites;

    BalanceController(BalanceQueries queries, ReadYourWrites readYourWrites) {
        this.queries = queries;
        this.readYourWrites = readYourWrites;
    }

    /**
     * The projected balance. With {@code minVersion=N} (the version a command returned), waits up to
     * {@code projector.read-your-writes-timeout} for the projection to reach it, then answers 503
     * {@code projection-behind} with Retry-After. While an in-place replay rebuilds the projection, answers 503
     * {@code projection-rebuilding}: a half-built balance is never presented as current.
     */
    @GetMapping(path = "/accounts/{id}/balance", produces = MediaType.APPLICATION_JSON_VALUE)
    @Refusals({ProblemType.INVALID_ACCOUNT_ID, ProblemType.INVALID_MIN_VERSION, ProblemType.ACCOUNT_NOT_FOUND,
            ProblemType.PROJECTION_BEHIND, ProblemType.PROJECTION_REBUILDING})
    public ResponseEntity<BalanceView> balance(@PathVariable("id") String id,
            @RequestParam(name = "minVersion", required = false) String minVersionText) throws InterruptedException {
        var accountId = PathIds.accountId(id);
        var minVersion = minVersion(minVersionText);
        var balance = minVersion == null ? queries.balance(accountId).orElseThrow(() -> notFound(id))
                : readYourWrites.await(accountId, minVersion);
        return ResponseEntity.ok().eTag("\"" + balance.version() + "\"").body(balance);
    }

    /**
     * The sum of the projected balances, the accounts counted and the stored offsets, all in one statement, so from
     * one snapshot. While transfers flow it can differ from the write side's total (a transfer's two events sit in two
     * partitions and are applied at different moments); once the pipeline is quiet it is equal.
     */
    @GetMapping(path = "/projection/total", produces = MediaType.APPLICATION_JSON_VALUE)
    public ProjectedTotal total() {
        return queries.total();
    }

    private static Long minVersion(String text) {
        if (text == null) {
            return null;
        }
        try {
            long version = Long.parseLong(text);
            if (version >= 1) {
                return version;
            }
        } catch (NumberFormatException e) {
            // same refusal as a non-positive number
        }
        throw new ApiProblem(ProblemType.INVALID_MIN_VERSION, "minVersion must be a positive integer, got " + text);
    }

    private static ApiProblem notFound(String id) {
        return new ApiProblem(ProblemType.ACCOUNT_NOT_FOUND, "the projection knows no account " + id);
    }
}
