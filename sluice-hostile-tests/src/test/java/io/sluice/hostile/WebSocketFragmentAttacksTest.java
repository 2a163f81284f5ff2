package io.sluice.hostile;

/** {@link FragmentAttacksTest}'s attacks over WebSocket: each RSocket frame a masked binary message. */
class WebSocketFragmentAttacksTest extends FragmentAttacksTest {
  @Override
  boolean webSocket() {
    return true;
  }
}
