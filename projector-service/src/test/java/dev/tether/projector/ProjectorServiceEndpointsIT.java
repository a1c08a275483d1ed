package dev.tether.projector;

import dev.tether.testing.ServiceEndpointsContract;
import dev.tether.testing.TetherStackResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
@QuarkusTestResource(TetherStackResource.class)
class ProjectorServiceEndpointsIT extends ServiceEndpointsContract {

    @Override
    protected String serviceName() {
        return "projector-service";
    }
}
