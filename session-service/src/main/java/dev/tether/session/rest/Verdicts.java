package dev.tether.session.rest;

import dev.tether.avro.CommandReply;
import dev.tether.kit.service.rest.ApiException;

/** How a rejection by the sequencer reaches the client: a status and a body with a stable {@code error} code. */
final class Verdicts {

    private Verdicts() {}

    static ApiException refusal(CommandReply reply) {
        var rejection = reply.getRejection();
        String code = rejection.getCode();
        ApiException e = switch (code) {
            case "not_found" -> ApiException.notFound("session");
            case "seq_conflict" -> new ApiException(409, code, rejection.getMessage()).with("lastSeq", reply.getLastSeq());
            case "stale_epoch" -> new ApiException(409, code, rejection.getMessage()).with("epoch", reply.getEpoch());
            case "version_pinned" -> new ApiException(409, code, rejection.getMessage());
            case "forbidden" -> new ApiException(403, code, rejection.getMessage());
            default -> new ApiException(422, code, rejection.getMessage());
        };
        return rejection.getField() == null ? e : e.with("field", rejection.getField());
    }
}
