package io.sluice.flavor.tck;

/** A futures client calling a StreamObserver server. */
class FuturesToGrpcTest extends InteractionSuite {
  FuturesToGrpcTest() {
    super(FuturesFlavor.INSTANCE, GrpcFlavor.INSTANCE, false);
  }
}
