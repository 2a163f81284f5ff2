package io.sluice.virtualthreads.guide;

import io.sluice.Message;
import io.sluice.core.ConnectionOptions;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.virtualthreads.BlockingChannel;
import io.sluice.virtualthreads.BlockingClient;
import io.sluice.virtualthreads.BlockingRequester;
import io.sluice.virtualthreads.BlockingResponder;
import io.sluice.virtualthreads.BlockingServer;
import io.sluice.virtualthreads.BlockingSink;
import io.sluice.virtualthreads.BlockingStream;
import io.sluice.virtualthreads.HandlerThreads;
import java.util.concurrent.ThreadFactory;

/**
 * docs/guide/flavors.md, "sluice-virtualthreads": compiled with this Java 21 module.
 * GuideSnippetsTest (sluice-examples) checks the page against the tagged regions.
 */
final class VirtualThreadsGuide {
  private VirtualThreadsGuide() {}

  static void blocking(ClientTransport transport, ServerTransport serverTransport) {
    // tag::blocking[]
    BlockingRequester b = BlockingClient.connect(transport);
    try (Message reply = b.requestResponse(Message.utf8(b.alloc(), "hi"))) {
      System.out.println(reply.dataUtf8());
    }
    try (BlockingStream s = b.requestStream(Message.utf8(b.alloc(), "go"), 64)) {  // 64 ahead at most
      s.stream().forEach(Message::release);                  // requests more as it is consumed
    }                                                        // close() cancels early
    BlockingChannel ch = b.requestChannel(Message.utf8(b.alloc(), "first"));
    ch.send(Message.utf8(b.alloc(), "second"));              // waits for the responder's demand
    ch.complete();
    ch.inbound().forEachRemaining(Message::release);

    BlockingServer.serve(serverTransport, new BlockingResponder() {
      @Override
      public void requestStream(Message request, BlockingSink out) {   // on its own virtual thread
        request.release();
        for (int i = 0; i < 1000; i++) out.send(Message.utf8("item " + i)); // blocks on demand
      }
    });
    // end::blocking[]
  }

  static void eventLoop(
      ServerTransport transport, BlockingResponder handler, BlockingRequester requester, Message req) {
    // tag::event-loop[]
    BlockingServer.serve(transport, ConnectionOptions.defaults(), (setup, r) -> handler,
        HandlerThreads.EVENT_LOOP_VIRTUAL);                 // handlers carried by each connection's loop
    ThreadFactory callers = requester.eventLoopThreads();   // callers carried by the client's loop
    callers.newThread(() -> {
      try (Message m = requester.requestResponse(req)) {
        System.out.println(m.dataUtf8());
      }
    }).start();
    // end::event-loop[]
  }
}
