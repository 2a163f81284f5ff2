package io.sluice.flavor.tck;

/** A StreamObserver client calling a mutiny server over TCP. */
class GrpcToMutinyTcpTest extends InteractionSuite {
  GrpcToMutinyTcpTest() {
    super(GrpcFlavor.INSTANCE, MutinyFlavor.INSTANCE, true);
  }
}
