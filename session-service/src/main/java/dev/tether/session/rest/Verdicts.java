package dev.tether.session.rest;

import dev.tether.kit.kafka.CommandVerdict;
import dev.tether.kit.service.rest.ApiException;

/** How a rejection by the sequencer reaches the client: a status and a body with a stable {@code error} code. */
final class Verdicts {

    private Verdicts() {}

    static ApiException refusal(CommandVerdict.Rejected rejection) {
        String code = rejection.code();
        ApiException e = switch (code) {
            case "not_found" -> ApiException.notFound("session");
            case "seq_conflict" -> new ApiException(409, code, rejection.message()).with("lastSeq", rejection.lastSeq());
            case "stale_epoch" -> new ApiException(409, code, rejection.message()).with("epoch", rejection.epoch());
            case "version_pinned" -> new ApiException(409, code, rejection.message());
            case "forbidden" -> new ApiException(403, code, rejection.message());
            default -> new ApiException(422, code, rejection.message());
        };
        return rejection.field().map(field -> e.with("field", field)).orElse(e);
    }
}
