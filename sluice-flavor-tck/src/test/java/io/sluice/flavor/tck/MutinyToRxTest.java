package io.sluice.flavor.tck;

/** A mutiny client calling an rxjava server. */
class MutinyToRxTest extends InteractionSuite {
  MutinyToRxTest() {
    super(MutinyFlavor.INSTANCE, RxFlavor.INSTANCE, false);
  }
}
