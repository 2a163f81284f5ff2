package io.sluice.flavor.tck;

/** A virtual-threads client calling a StreamObserver server. */
class VtToGrpcTest extends InteractionSuite {
  VtToGrpcTest() {
    super(VtFlavor.INSTANCE, GrpcFlavor.INSTANCE, false);
  }
}
