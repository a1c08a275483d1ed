package dev.tether.langchain4j;

/**
 * Tether could not do what LangChain4j asked of the memory store or the tool bridge, and says why: the session refused a
 * write (the field named), is gone, or holds something this package cannot read. Nothing half-written is left: an
 * update is one append, all of it or none (one too large for an append is several, each a whole memory).
 */
public class TetherMemoryException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public TetherMemoryException(String message) {
        super(message);
    }

    public TetherMemoryException(String message, Throwable cause) {
        super(message, cause);
    }
}
