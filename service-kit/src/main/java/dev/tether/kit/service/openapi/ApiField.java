package dev.tether.kit.service.openapi;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Documents one property of an {@link ApiType} (on a record component). */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.RECORD_COMPONENT})
public @interface ApiField {

    /** What it holds. */
    String description() default "";

    /** Its values, for a string that takes a few. */
    String[] values() default {};

    /** It may be JSON's null (it is always there). */
    boolean nullable() default false;

    /** The component a {@code JsonNode} property is (its items are, for a list), e.g. {@code NewEvent}. */
    String ref() default "";
}
