package dev.tether.client.internal;

import dev.tether.client.TetherException;

/** A service answered 2xx with a body the client cannot read (a proxy's page, a field missing). Not part of the API. */
public final class MalformedAnswerException extends TetherException {

    private static final long serialVersionUID = 1L;

    public MalformedAnswerException(String message) {
        super(message, null, false);
    }
}
