package dev.tether.approval;

import dev.tether.testing.ServiceEndpointsContract;
import dev.tether.testing.TetherStackResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
@QuarkusTestResource(TetherStackResource.class)
class ApprovalServiceEndpointsIT extends ServiceEndpointsContract {

    @Override
    protected String serviceName() {
        return "approval-service";
    }
}
