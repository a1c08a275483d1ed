package dev.tether.session.rest;

import dev.tether.common.json.EventJson;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** The JSON reader and writer of events and request bodies. */
public class JsonSetup {

    @Produces
    @Singleton
    EventJson eventJson() {
        return new EventJson();
    }
}
