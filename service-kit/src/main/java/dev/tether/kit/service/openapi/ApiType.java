package dev.tether.kit.service.openapi;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Documents a request or answer type for {@link ApiSchemas}. Not MicroProfile's {@code @Schema}: SmallRye turns every class
 * carrying that into a component of its own, named after the class, over the one {@link ApiSchemas} derived.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface ApiType {

    /** What it is, for the reader of the document. */
    String description();

    /** On a request: the properties a client must send (the type refuses the body without them). */
    String[] required() default {};
}
