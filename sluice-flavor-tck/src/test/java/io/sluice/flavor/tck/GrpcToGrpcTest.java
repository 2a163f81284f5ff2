package io.sluice.flavor.tck;

/** The suite with a StreamObserver client and a StreamObserver server. */
class GrpcToGrpcTest extends InteractionSuite {
  GrpcToGrpcTest() {
    super(GrpcFlavor.INSTANCE, GrpcFlavor.INSTANCE, false);
  }
}
