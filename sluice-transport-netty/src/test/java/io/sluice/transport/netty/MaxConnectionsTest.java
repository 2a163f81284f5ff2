package io.sluice.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.transport.ServerTransport;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link TcpServerTransport#withMaxConnections}: connections over the cap are closed on accept. */
class MaxConnectionsTest {

  @Test
  void connectionsOverTheCapAreClosedAndFreedSlotsAreReused() throws Exception {
    ConcurrentLinkedQueue<io.sluice.transport.DuplexTransport> accepted = new ConcurrentLinkedQueue<>();
    ServerTransport.Bound bound =
        TcpServerTransport.create("127.0.0.1", 0)
            .withMaxConnections(2)
            .bind(accepted::add)
            .get(10, TimeUnit.SECONDS);
    int port = ((InetSocketAddress) bound.address()).getPort();
    List<Socket> sockets = new ArrayList<>();
    try {
      List<Socket> three =
          new ArrayList<>(List.of(connect(port, sockets), connect(port, sockets), connect(port, sockets)));
      // Over the cap: one of them is closed by the server without a byte. New connections are
      // initialised on several event loops, so the one counted third need not be the one
      // connected last.
      Socket over = awaitEof(three.toArray(new Socket[0]));
      assertThat(over).as("a connection over the cap closed").isNotNull();
      three.remove(over);
      Socket a = three.get(0);
      Socket b = three.get(1);
      // The two within the cap stay open: nothing to read, no EOF.
      for (Socket s : List.of(a, b)) {
        s.setSoTimeout(200);
        InputStream in = s.getInputStream();
        assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);
      }
      // Only the two within the cap reached the connection handler.
      assertThat(accepted).hasSize(2);
      // One is closed (here by the server side: nothing reads these raw connections, so the
      // server would not notice a client's close): its slot is free again.
      io.sluice.transport.DuplexTransport first = accepted.poll();
      first.executor().execute(first::close);
      // Accept order need not be connect order: whichever of a and b it served sees EOF.
      assertThat(awaitEof(a, b)).as("one of the admitted connections closed").isNotNull();
      Socket again = null;
      for (int attempt = 0; attempt < 100 && again == null; attempt++) {
        Socket s = connect(port, sockets);
        s.setSoTimeout(200);
        try {
          if (s.getInputStream().read() == -1) {
            Thread.sleep(50); // the slot is not free yet
            continue;
          }
        } catch (SocketTimeoutException e) {
          again = s; // open: admitted
        }
      }
      assertThat(again).as("a connection admitted after one left").isNotNull();
    } finally {
      for (Socket s : sockets) {
        s.close();
      }
      for (io.sluice.transport.DuplexTransport t : accepted) {
        t.executor().execute(t::close);
      }
      bound.close();
    }
  }

  @Test
  void capMustBePositive() {
    assertThatThrownBy(() -> TcpServerTransport.create("127.0.0.1", 0).withMaxConnections(0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * The first of the sockets to read EOF, or null if none does within about 10 s of polling (a
   * hang guard).
   */
  private static Socket awaitEof(Socket... candidates) throws Exception {
    for (int round = 0; round < 50; round++) {
      for (Socket s : candidates) {
        s.setSoTimeout(100);
        try {
          if (s.getInputStream().read() == -1) {
            return s;
          }
        } catch (SocketTimeoutException e) {
          // still open
        }
      }
    }
    return null;
  }

  private static Socket connect(int port, List<Socket> sockets) throws Exception {
    Socket s = new Socket();
    sockets.add(s);
    s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
    s.setSoTimeout(10_000);
    return s;
  }
}
