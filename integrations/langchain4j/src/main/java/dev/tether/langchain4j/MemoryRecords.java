package dev.tether.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link TetherChatMemoryStore} writes into a session's log besides typed events: {@code framework_state} events of
 * framework {@value #FRAMEWORK}, whose {@code content} is one of the records below (JSON). Tether stores, offloads and
 * scrubs them and never interprets them; they are this package's format. Field names are short on purpose: a memory
 * record is written at every update of the memory.
 *
 * <ul>
 *   <li>{@value #MEMORY} — the message list one {@code updateMessages} wrote, as references: the items of the list the
 *       previous memory record holds ({@code base}) that stay, as ranges {@code [from, to)}, and references to the
 *       events holding the other messages, in list order: {@code {"base": 812, "items": [[0, 1], [3, 20], {"s": 830}]}}.
 *       An update that extends the list is {@code [[0, n]]} and its new messages; a window that evicts the oldest
 *       messages keeps two ranges; so each record is as small as the change, and storage grows with the conversation.</li>
 *   <li>{@value #MESSAGE} — a message no typed event fits (a system message after the session's start, a tool result
 *       of a call Tether does not know, a custom message), whole, as LangChain4j's {@code ChatMessageSerializer} writes
 *       it.</li>
 * </ul>
 *
 * A reference ({@link Ref}) is {@code {"s": seq}} when the event's default message is the message itself, else
 * {@code {"s": seq, "r": residual, "t": 1}}: the residual is the message's JSON, less its text when {@code t} says the
 * text is the event's.
 */
final class MemoryRecords {

    /** The {@code framework} of every {@code framework_state} event this package writes. */
    static final String FRAMEWORK = "langchain4j";
    /** {@code kind} of a memory record. */
    static final String MEMORY = "memory";
    /** {@code kind} of a message record. */
    static final String MESSAGE = "message";

    private MemoryRecords() {}

    /**
     * Where one message of a memory is: the event at {@code seq}, with what that event does not hold of it.
     *
     * @param seq           the event holding the message (a typed event, or a message record)
     * @param residual      the message's JSON less what the event holds; null when the event's default message is it
     * @param textFromEvent the residual's text is left out: it is the event's text (its content, summary or system prompt)
     */
    record Ref(long seq, ObjectNode residual, boolean textFromEvent) {

        static Ref to(long seq) {
            return new Ref(seq, null, false);
        }

        ObjectNode toJson() {
            ObjectNode n = MessageMapping.JSON.createObjectNode();
            n.put("s", seq);
            if (residual != null) {
                n.set("r", residual);
                if (textFromEvent) {
                    n.put("t", 1);
                }
            }
            return n;
        }

        static Ref fromJson(JsonNode n) {
            if (!n.isObject() || !n.path("s").canConvertToLong()) {
                throw new TetherMemoryException("a memory record's reference is not {\"s\": seq, ...}: " + n);
            }
            JsonNode r = n.get("r");
            return new Ref(n.get("s").asLong(), r != null && r.isObject() ? (ObjectNode) r : null, n.path("t").asInt(0) == 1);
        }
    }

    /** One item of a memory record: a range of the base list that stays, or a reference to a message. */
    sealed interface Item permits Kept, Added {}

    /** The base list's messages {@code from} (inclusive) to {@code to} (exclusive). */
    record Kept(int from, int to) implements Item {
        Kept {
            if (from < 0 || to <= from) {
                throw new TetherMemoryException("a memory record's range [" + from + ", " + to + ") is empty or negative");
            }
        }
    }

    record Added(Ref ref) implements Item {}

    /**
     * One memory record.
     *
     * @param base  the seq of the memory record whose list this one's ranges are of; 0 for none
     * @param items the list, in order
     */
    record Memory(long base, List<Item> items) {

        Memory {
            items = List.copyOf(items);
            if (base == 0 && items.stream().anyMatch(i -> i instanceof Kept)) {
                throw new TetherMemoryException("a memory record without a base keeps nothing of one");
            }
        }

        String toJson() {
            ObjectNode n = MessageMapping.JSON.createObjectNode();
            if (base > 0) {
                n.put("base", base);
            }
            ArrayNode list = n.putArray("items");
            for (Item item : items) {
                if (item instanceof Kept k) {
                    list.addArray().add(k.from()).add(k.to());
                } else {
                    list.add(((Added) item).ref().toJson());
                }
            }
            return n.toString();
        }

        static Memory fromJson(JsonNode n) {
            if (!n.isObject() || !n.path("items").isArray()) {
                throw new TetherMemoryException("a memory record is not {\"items\": [...]}: it is " + n.getNodeType());
            }
            var items = new ArrayList<Item>();
            for (JsonNode i : n.get("items")) {
                if (i.isArray()) {
                    items.add(new Kept(i.path(0).asInt(), i.path(1).asInt()));
                } else {
                    items.add(new Added(Ref.fromJson(i)));
                }
            }
            return new Memory(n.path("base").asLong(0), items);
        }
    }
}
