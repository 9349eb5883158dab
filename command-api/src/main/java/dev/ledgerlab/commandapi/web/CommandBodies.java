package dev.ledgerlab.commandapi.web;

import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

import dev.ledgerlab.commandapi.account.TransferMoney;
import dev.ledgerlab.problems.ApiProblem;
import dev.ledgerlab.problems.ProblemType;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.UUID;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.exc.UnrecognizedPropertyException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads command bodies strictly: JSON only, bounded in size, no unknown fields, amounts that are JSON integers.
 * Written by hand rather than with {@code @RequestBody} because Spring's converters neither bound the body's
 * size nor tell a float or a quoted number from an integer once Jackson has coerced it.
 */
@Component
public class CommandBodies {

    /* The components stay JsonNode so that the checks below see what the client sent; @Schema says what it must be. */

    public record OpenAccountBody(@Schema(implementation = String.class, requiredMode = REQUIRED, maxLength = 200,
            description = "the account's owner, not blank") JsonNode owner) {
    }

    public record AmountBody(@Schema(implementation = Long.class, requiredMode = REQUIRED, minimum = "1",
            maximum = "1000000000000", description = "minor units, a JSON integer (ledger.commands.max-amount)")
            JsonNode amount) {
    }

    public record TransferBody(
            @Schema(implementation = UUID.class, requiredMode = REQUIRED, description = "the source account")
            JsonNode from,
            @Schema(implementation = UUID.class, requiredMode = REQUIRED, description = "the target account")
            JsonNode to,
            @Schema(implementation = Long.class, requiredMode = REQUIRED, minimum = "1", maximum = "1000000000000",
                    description = "minor units, a JSON integer") JsonNode amount) {
    }

    private static final int MAX_OWNER_LENGTH = 200;

    private final JsonMapper strict = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();
    private final CommandLimits limits;

    public CommandBodies(CommandLimits limits) {
        this.limits = limits;
    }

    public String owner(HttpServletRequest request) {
        var owner = read(request, OpenAccountBody.class).owner();
        if (owner == null || !owner.isString() || owner.asString().isBlank()
                || owner.asString().length() > MAX_OWNER_LENGTH) {
            throw new ApiProblem(ProblemType.INVALID_OWNER,
                    "\"owner\" must be a non-blank string of at most " + MAX_OWNER_LENGTH + " characters");
        }
        return owner.asString();
    }

    public long amount(HttpServletRequest request) {
        return amount(read(request, AmountBody.class).amount());
    }

    /** {"from": account id, "to": account id, "amount": minor units}; the two ids must differ. */
    public TransferMoney transfer(HttpServletRequest request) {
        var body = read(request, TransferBody.class);
        var from = accountId(body.from(), "from");
        var to = accountId(body.to(), "to");
        long amount = amount(body.amount());
        if (from.equals(to)) {
            throw new ApiProblem(ProblemType.SAME_ACCOUNT_TRANSFER,
                    "\"from\" and \"to\" are the same account, " + from);
        }
        return new TransferMoney(from, to, amount);
    }

    private static UUID accountId(JsonNode id, String field) {
        if (id == null || id.isNull()) {
            throw new ApiProblem(ProblemType.INVALID_ACCOUNT_ID, "\"" + field + "\" is required",
                    Map.of("field", field));
        }
        try {
            if (id.isString() && id.asString().length() == 36) {
                return UUID.fromString(id.asString());
            }
        } catch (IllegalArgumentException e) {
            // same refusal as any other non-UUID
        }
        throw new ApiProblem(ProblemType.INVALID_ACCOUNT_ID, "\"" + field + "\" must be an account id (a UUID"
                + " string)", Map.of("field", field));
    }

    private long amount(JsonNode amount) {
        if (amount == null || amount.isNull()) {
            throw new ApiProblem(ProblemType.INVALID_AMOUNT, "\"amount\" is required");
        }
        if (!amount.isIntegralNumber()) {
            throw new ApiProblem(ProblemType.INVALID_AMOUNT,
                    "\"amount\" must be a JSON integer of minor units, got " + amount);
        }
        if (amount.bigIntegerValue().signum() <= 0) {
            throw new ApiProblem(ProblemType.INVALID_AMOUNT, "\"amount\" must be positive, got " + amount);
        }
        if (!amount.canConvertToLong() || amount.asLong() > limits.maxAmount()) {
            throw new ApiProblem(ProblemType.AMOUNT_TOO_LARGE,
                    "\"amount\" must be at most " + limits.maxAmount() + ", got " + amount,
                    Map.of("maxAmount", limits.maxAmount()));
        }
        return amount.asLong();
    }

    private <T> T read(HttpServletRequest request, Class<T> type) {
        requireJson(request.getContentType());
        var body = readBounded(request);
        if (body.length == 0) {
            throw new ApiProblem(ProblemType.MALFORMED_JSON, "the request body is empty");
        }
        try {
            var value = strict.readValue(body, type);
            if (value == null) {
                throw new ApiProblem(ProblemType.MALFORMED_JSON, "the request body must be a JSON object");
            }
            return value;
        } catch (UnrecognizedPropertyException e) {
            throw new ApiProblem(ProblemType.UNKNOWN_FIELD, "unknown field \"" + e.getPropertyName()
                    + "\"; this command takes " + e.getKnownPropertyIds(), Map.of("field", e.getPropertyName()));
        } catch (JacksonException e) {
            throw new ApiProblem(ProblemType.MALFORMED_JSON, "the request body is not a valid JSON object: "
                    + e.getOriginalMessage());
        }
    }

    private static void requireJson(String contentType) {
        try {
            if (contentType != null) {
                var mediaType = MediaType.parseMediaType(contentType);
                if (MediaType.APPLICATION_JSON.isCompatibleWith(mediaType)
                        || "json".equals(mediaType.getSubtypeSuffix())) {
                    return;
                }
            }
        } catch (InvalidMediaTypeException e) {
            // falls through to the same refusal as a missing or non-JSON type
        }
        throw new ApiProblem(ProblemType.UNSUPPORTED_MEDIA_TYPE,
                "Content-Type must be application/json, got " + (contentType == null ? "none" : contentType));
    }

    private byte[] readBounded(HttpServletRequest request) {
        int max = limits.maxBodyBytes();
        if (request.getContentLengthLong() > max) {
            throw tooLarge(max);
        }
        try (var in = request.getInputStream()) {
            // Chunked bodies carry no length: read one byte past the limit to know it was exceeded.
            var body = in.readNBytes(max + 1);
            if (body.length > max) {
                throw tooLarge(max);
            }
            return body;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ApiProblem tooLarge(int max) {
        return new ApiProblem(ProblemType.BODY_TOO_LARGE, "request bodies are limited to " + max + " bytes",
                Map.of("maxBodyBytes", max));
    }
}
