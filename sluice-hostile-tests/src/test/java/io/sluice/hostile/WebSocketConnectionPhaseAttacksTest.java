package io.sluice.hostile;

/** {@link ConnectionPhaseAttacksTest}'s attacks over WebSocket: each RSocket frame a masked binary message. */
class WebSocketConnectionPhaseAttacksTest extends ConnectionPhaseAttacksTest {
  @Override
  boolean webSocket() {
    return true;
  }
}
