package io.sluice.flavor.tck;

/** A StreamObserver client calling a reactor server. */
class GrpcToReactorTest extends InteractionSuite {
  GrpcToReactorTest() {
    super(GrpcFlavor.INSTANCE, ReactorFlavor.INSTANCE, false);
  }
}
