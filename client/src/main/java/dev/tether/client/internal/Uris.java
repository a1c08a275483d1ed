package dev.tether.client.internal;

import java.net.URI;
import java.nio.charset.StandardCharsets;

/** Builds request URLs from a base URL, path segments and query parameters, each percent-encoded. Not part of the API. */
public final class Uris {

    private final StringBuilder url;
    private boolean query;

    private Uris(URI base) {
        this.url = new StringBuilder(base.toString());
    }

    public static Uris of(URI base) {
        return new Uris(base);
    }

    /** A literal path, e.g. {@code /v1/sessions}. */
    public Uris path(String literal) {
        url.append(literal);
        return this;
    }

    /**
     * One path segment from caller data (an id), encoded. {@code .} and {@code ..} are refused: a URL's dot segments are
     * removed ({@code %2E} too), so the request would address another resource ({@code /v1/approvals/../decision} is
     * {@code /v1/decision}); so is an empty id, which would too ({@code /v1/approvals/} is the list of approvals), and an id
     * with a lone surrogate, which UTF-8 cannot encode.
     */
    public Uris segment(String value) {
        if (value.isEmpty()) {
            throw new IllegalArgumentException("an id must not be empty: it would address another resource");
        }
        if (value.equals(".") || value.equals("..")) {
            throw new IllegalArgumentException("an id must not be '" + value + "': it would address another resource");
        }
        if (!StandardCharsets.UTF_8.newEncoder().canEncode(value)) { // getBytes would write a lone surrogate as '?': another id
            throw new IllegalArgumentException("an id must be well-formed Unicode (it has a lone surrogate): " + value);
        }
        url.append('/').append(encode(value));
        return this;
    }

    /** A query parameter; left out when {@code value} is null. */
    public Uris param(String name, Object value) {
        if (value != null) {
            url.append(query ? '&' : '?').append(encode(name)).append('=').append(encode(value.toString()));
            query = true;
        }
        return this;
    }

    public URI build() {
        return URI.create(url.toString());
    }

    /** RFC 3986 unreserved characters stay; every other byte of the UTF-8 form is {@code %XX}. */
    static String encode(String value) {
        var out = new StringBuilder();
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~') {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return out.toString();
    }
}
