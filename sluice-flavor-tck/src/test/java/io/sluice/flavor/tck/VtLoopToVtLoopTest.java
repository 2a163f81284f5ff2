package io.sluice.flavor.tck;

/** The suite with virtual threads carried by the event loop on both sides. */
class VtLoopToVtLoopTest extends InteractionSuite {
  VtLoopToVtLoopTest() {
    super(VtFlavor.EVENT_LOOP, VtFlavor.EVENT_LOOP, false);
  }
}
