package io.sluice.flavor.tck;

/** The suite with a reactor client and a reactor server (the reference pair). */
class ReactorToReactorTest extends InteractionSuite {
  ReactorToReactorTest() {
    super(ReactorFlavor.INSTANCE, ReactorFlavor.INSTANCE, false);
  }
}
