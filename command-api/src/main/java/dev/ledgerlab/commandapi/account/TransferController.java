package dev.ledgerlab.commandapi.account;

import static dev.ledgerlab.commandapi.account.CommandHttp.etag;
import static dev.ledgerlab.commandapi.account.CommandHttp.http;
import static dev.ledgerlab.commandapi.account.CommandHttp.idempotencyKey;
import static dev.ledgerlab.commandapi.account.CommandHttp.ifMatch;

import dev.ledgerlab.commandapi.idempotency.CommandResponse;
import dev.ledgerlab.commandapi.idempotency.IdempotentCommands;
import dev.ledgerlab.commandapi.web.CommandBodies;
import dev.ledgerlab.commandapi.web.CommandKind;
import dev.ledgerlab.commandapi.web.MoneyMovementRefusals;
import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.MoneyReceived;
import dev.ledgerlab.events.MoneySent;
import dev.ledgerlab.problems.ApiProblem;
import dev.ledgerlab.problems.PathIds;
import dev.ledgerlab.problems.ProblemType;
import dev.ledgerlab.problems.Refusals;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.servlet.http.HttpServletRequest;
import java.math.BigInteger;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

/** Transfers between two accounts, and the write side's total, which no transfer changes. */
@RestController
@Refusals(ProblemType.DATABASE_UNAVAILABLE)
public class TransferController {

    public record Side(UUID accountId, long version, long balance) {
    }

    public record Transferred(UUID transferId, Side from, Side to) {
    }

    public record StoredSide(UUID accountId, long version, UUID eventId) {
    }

    public record TransferView(UUID transferId, long amount, Instant occurredAt, StoredSide from, StoredSide to) {
    }

    public record LedgerTotal(BigInteger balance, long accounts) {
    }

    private final AccountCommands commands;
    private final AccountStore store;
    private final IdempotentCommands idempotent;
    private final CommandBodies bodies;
    private final JsonMapper json;
    private final RequestTraces traces;

    public TransferController(AccountCommands commands, AccountStore store, IdempotentCommands idempotent,
            CommandBodies bodies, JsonMapper json, RequestTraces traces) {
        this.commands = commands;
        this.store = store;
        this.idempotent = idempotent;
        this.bodies = bodies;
        this.json = json;
        this.traces = traces;
    }

    /** If-Match applies to the source account: the one whose balance the client decided on. */
    @PostMapping(path = "/transfers", produces = MediaType.APPLICATION_JSON_VALUE)
    @CommandKind("transfer")
    @MoneyMovementRefusals
    @Refusals({ProblemType.SAME_ACCOUNT_TRANSFER, ProblemType.INSUFFICIENT_FUNDS, ProblemType.BALANCE_OVERFLOW})
    @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, content = @Content(
            mediaType = MediaType.APPLICATION_JSON_VALUE, schema = @Schema(implementation = CommandBodies.TransferBody.class)))
    public ResponseEntity<String> transfer(HttpServletRequest request,
            @RequestHeader(name = "Idempotency-Key", required = false) String idempotencyKey,
            @RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatchHeader,
            @RequestHeader(name = "traceparent", required = false) String traceparent,
            @RequestHeader(name = "tracestate", required = false) String tracestate) {
        var key = idempotencyKey(idempotencyKey);
        var precondition = ifMatch(ifMatchHeader);
        var command = bodies.transfer(request);
        var trace = traces.of(traceparent, tracestate);
        var identity = "POST /transfers " + command + " if-match=" + precondition.header();
        return http(idempotent.run(key, identity, () -> {
            var transferred = commands.transfer(command, precondition, trace);
            var from = transferred.from().account();
            var to = transferred.to().account();
            return CommandResponse.of(201,
                    Map.of(HttpHeaders.LOCATION, "/transfers/" + transferred.transferId(), HttpHeaders.ETAG,
                            etag(from)),
                    json.writeValueAsString(new Transferred(transferred.transferId(),
                            new Side(from.id(), from.version(), from.balance()),
                            new Side(to.id(), to.version(), to.balance()))));
        }));
    }

    /** The transfer as stored: its two events, read back from ledger.events. */
    @GetMapping(path = "/transfers/{id}", produces = MediaType.APPLICATION_JSON_VALUE)
    @Refusals({ProblemType.INVALID_TRANSFER_ID, ProblemType.TRANSFER_NOT_FOUND})
    public TransferView transfer(@PathVariable("id") String id) {
        var transferId = PathIds.transferId(id);
        var events = store.transferEvents(transferId).stream().map(EventCodec::fromJson).toList();
        if (events.size() != 2 || !(events.get(0).event() instanceof MoneySent sent)
                || !(events.get(1).event() instanceof MoneyReceived)) {
            throw new ApiProblem(ProblemType.TRANSFER_NOT_FOUND, "no transfer " + transferId);
        }
        var source = events.get(0);
        var target = events.get(1);
        return new TransferView(transferId, sent.amount(), source.occurredAt(),
                new StoredSide(source.accountId(), source.version(), source.eventId()),
                new StoredSide(target.accountId(), target.version(), target.eventId()));
    }

    /** Every balance summed and the accounts counted in one statement, so in one snapshot of the write model. */
    @GetMapping(path = "/ledger/total", produces = MediaType.APPLICATION_JSON_VALUE)
    public LedgerTotal total() {
        var total = store.total();
        return new LedgerTotal(total.balance(), total.accounts());
    }
}
