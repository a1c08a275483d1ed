package dev.tether.kit.service.rest;

import dev.tether.kit.json.EventJson;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** One strict JSON reader and writer of events per service. */
public class EventJsonProducer {

    @Produces
    @Singleton
    EventJson eventJson() {
        return new EventJson();
    }
}
