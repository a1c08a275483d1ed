package dev.tether.session;

import dev.tether.testing.ServiceEndpointsContract;
import dev.tether.testing.TetherStackResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
@QuarkusTestResource(TetherStackResource.class)
class SessionServiceEndpointsIT extends ServiceEndpointsContract {

    @Override
    protected String serviceName() {
        return "session-service";
    }
}
