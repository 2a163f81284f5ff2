package io.sluice.flavor.tck;

/** A StreamObserver client calling a virtual-threads server. */
class GrpcToVtTest extends InteractionSuite {
  GrpcToVtTest() {
    super(GrpcFlavor.INSTANCE, VtFlavor.INSTANCE, false);
  }
}
